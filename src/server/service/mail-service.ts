/**
 * The mail service of the reference service: sessions, inboxes, delivery and expiry on top of a Store.
 * HTTP routes and SMTP intake depend only on this (through MailService); it knows nothing of either.
 *
 * Expired sessions are removed by purgeExpired(), which the assembler calls at start and every
 * config.purgeIntervalMs; until then an expired session answers session_expired (410) and its address
 * answers 'expired' to RCPT TO.
 *
 * Several services may share one store (Postgres): what must hold across them (a name handed out once,
 * the inbox limit, the create-session rate) is decided by one atomic store operation, never by a read
 * here followed by a write.
 */
import { randomBytes } from 'node:crypto';
import { checkPrefix, randomLocalPart } from '../mail/addresses';
import { systemClock, type Clock, type ServerConfig } from '../config/server-config';
import { fieldsToStore } from '../mail/mime';
import { externalIntake } from './external-intake';
import { smtpRecipients } from './smtp-recipients';
import { inboxReads } from './inbox-reads';
import { hashToken } from './token-hash';
import { ClientLimits, ratesOf } from '../limits/client-limits';
import { asLogger } from '../observe/log';
import { StorageHealth } from '../observe/storage-health';
import { addressFor, chooseTarget, roundRobin } from '../mail/session-target';
import { createInboxWatch } from './inbox-watch';
import {
  ServiceError,
  type CreatedSession,
  type DeliverOutcome,
  type MailService,
  type ServiceHealth,
} from './service-types';
import { StoreClosedError, type StorageCaps, type Store, type StoredSession } from '../store/store';

export interface MailServiceDeps {
  /** An opened store; the service closes it in close(). */
  store: Store;
  config: ServerConfig;
  clock?: Clock;
  /** One line per storage failure (never a token); a Logger (observe/log.ts) gets events. */
  log?: (line: string) => void;
  /** The per-client rates (create-session's here); default: the config's, counted in `store`. */
  limits?: ClientLimits;
  /** Whether the storage serves; default: one of its own, without background probes. */
  health?: StorageHealth;
  /** A message (of `bytes` bytes) was stored for `copies` sessions, by SMTP or IMAP (metrics, storage cap). */
  onStored?: (copies: number, bytes: number) => void;
  /** Mail was deleted: the storage cap measures again before it next refuses (room is seen at once). */
  onFreed?: () => void;
  /** With config.catchAll: an inbox made by the first mail to its address (its token, for the app only). */
  onCatchAll?: (session: CreatedSession) => void;
  /**
   * Whether the storage cap is reached (src/server/limits/storage-cap.ts). SMTP hears it at MAIL FROM;
   * here it keeps fetched mail in its external account until there is room. Default: never.
   */
  storageFull?: () => boolean;
  /** The storage cap now: a store shared by several services (Postgres) keeps it where it stores (Store.deliver). */
  storageCaps?: () => StorageCaps;
  /**
   * Whether external account `id` (1-based) is active now: one whose mail is fetched over IMAP is
   * listed by GET /domains and handed out only while its connection is healthy. Default: all are.
   */
  accountActive?: (id: number) => boolean;
  /** Another service on the store changed the blocks (Postgres): the admin service reads them again. */
  onBlocksChanged?: () => void;
  /** A session was created (the metrics). */
  onCreated?: () => void;
  /** The store's notices of other instances are heard (true) or no longer (false): Postgres's LISTEN. */
  onListening?: (up: boolean) => void;
}

/** How many random local parts to try before giving up (each collides with odds ~ sessions / 163M). */
const RANDOM_ATTEMPTS = 20;

export { hashToken } from './token-hash';

/** Builds the MailService on an opened store. */
export function createMailService(deps: MailServiceDeps): MailService {
  const { store, config } = deps;
  const clock = deps.clock ?? systemClock;
  const log = asLogger(deps.log);
  // Read from `config` at each use: a reload (SIGHUP, src/server/reload/) changes it in place.
  let domainsOf: string[] | undefined;
  let lowered: string[] = [];
  const ourDomains = () => {
    if (config.domains !== domainsOf) {
      domainsOf = config.domains;
      lowered = domainsOf.map((d) => d.toLowerCase());
    }
    return lowered;
  };
  const limits = deps.limits ?? new ClientLimits(store, ratesOf(config), clock);
  const storage = deps.health ?? new StorageHealth({ probe: () => store.probe(), log });
  let sessionCount = 0;
  const pickAccount = roundRobin();
  const inboxWatch = createInboxWatch();
  // Mail other services on the same store deliver (Postgres) reaches this one's watchers too.
  const notices = store.listenForMail?.({
    onMail: (hashes) => inboxWatch.announce(hashes),
    onGap: () => {
      inboxWatch.announceAll();
      void endDeletedWatches();
    },
    onGone: (hashes) => inboxWatch.gone(hashes),
    onBlocks: () => deps.onBlocksChanged?.(),
    onListening: (up) => deps.onListening?.(up),
  });

  /**
   * After a gap in the notices a deletion's may have been missed too: each watched session is looked up
   * once, and the watchers of one that is gone are told (their event streams end). One read per watched
   * session, only after the listening connection came back; a failed read leaves that watch as it is.
   */
  async function endDeletedWatches(): Promise<void> {
    for (const hash of inboxWatch.watched()) {
      const session = await store.getSessionByTokenHash(hash).catch(() => null);
      if (session === undefined) inboxWatch.gone([hash]);
    }
  }

  const refreshCount = () =>
    store.countSessions().then(
      (n) => {
        sessionCount = n;
      },
      () => undefined,
    );
  void refreshCount();

  /**
   * Turns a store failure into the answer the front ends give, and tells the storage health. The answer
   * never carries the reason (an errno, a database's address): that goes to the log.
   */
  function storageError(err: unknown): ServiceError {
    if (err instanceof ServiceError) return err;
    // Shutting down is not a storage fault: answer "try later" without marking health failing.
    if (err instanceof StoreClosedError) {
      return new ServiceError('storage_unavailable', 'The service is shutting down; try again later');
    }
    storage.failed(err);
    return new ServiceError('storage_unavailable', 'Mail storage is unavailable; try again later');
  }

  /** Runs a store operation; a rejection becomes storage_unavailable, a success of a write clears it. */
  async function guarded<T>(work: () => Promise<T>, isWrite = false): Promise<T> {
    try {
      const result = await work();
      if (isWrite) storage.succeeded();
      return result;
    } catch (err) {
      throw storageError(err);
    }
  }

  /**
   * Parses `raw` and stores it for `targets` (session id -> the recipient it came for) under the inbox
   * limit: the one parse and store path of mail, whether it came by SMTP or was fetched over IMAP.
   */
  async function storeFor(
    targets: Map<string, string>,
    raw: Buffer,
    envelopeFrom: string,
    now: number,
    sessions?: Map<string, StoredSession>,
    clientIp?: string,
  ): Promise<DeliverOutcome> {
    if (targets.size === 0) return { delivered: 0 };
    const fields = await fieldsToStore(raw, envelopeFrom);
    // Where it came from (SMTP only; not for mail fetched over IMAP), for the admin API.
    const origin = clientIp === undefined ? {} : { clientIp, envelopeFrom };
    // The inbox limit is decided here, where the message is stored, not at RCPT TO: parallel
    // connections (or other services on the same store) may have filled the inbox since.
    const message = { ...fields, raw, receivedAt: now, ...origin };
    const result = await guarded(
      () => store.deliver([...targets.keys()], message, config.inboxLimit, deps.storageCaps?.()),
      true,
    );
    // A session purged between RCPT and now simply no longer receives (it is in result.gone).
    if (result.full.length > 0) return { delivered: 0, full: result.full.map((id) => targets.get(id) ?? id) };
    // Other services on the store filled it since this one's count (the store's atomic check).
    if (result.capped) return { delivered: 0, capped: true };
    if (result.stored.size > 0) deps.onStored?.(result.stored.size, raw.length);
    if (sessions) inboxWatch.announce([...result.stored.keys()].flatMap((id) => sessions.get(id)?.tokenHash ?? []));
    return { delivered: result.stored.size };
  }

  const accountActive = deps.accountActive ?? (() => true);

  const service: MailService = {
    listDomains() {
      return {
        domains: ourDomains().map((domain, i) => ({ id: i + 1, domain })),
        // Ids stay the accounts' places in the configuration, whichever are listed now.
        extmailAccounts: config.extmailAccounts
          .map((a, i) => ({ id: i + 1, email: a.email }))
          .filter((a) => accountActive(a.id)),
      };
    },

    async createSession(input) {
      const now = clock();
      const wait = await guarded(() => limits.hit('create', input.clientAddress));
      if (wait > 0) {
        throw new ServiceError('rate_limited', `Too many new addresses from this client; try again in ${wait} s`, wait);
      }
      let custom: string | undefined;
      if (input.prefix !== undefined && input.prefix.trim() !== '') {
        const checked = checkPrefix(input.prefix);
        if (!checked.ok) throw new ServiceError('bad_request', checked.message);
        custom = checked.prefix;
      }
      const target = chooseTarget(input, ourDomains(), config.extmailAccounts, pickAccount, accountActive);
      for (let attempt = 0; attempt < (custom ? 1 : RANDOM_ATTEMPTS); attempt++) {
        const address = addressFor(target, custom ?? randomLocalPart(), config.extmailAccounts);
        const token = randomBytes(32).toString('base64url');
        const session: StoredSession = {
          id: randomBytes(16).toString('hex'),
          tokenHash: hashToken(token),
          ...address,
          kind: target.kind,
          extmailAccountId: target.kind === 'extmail' ? target.accountId : null,
          createdAt: now,
          expiresAt: now + config.lifetimeSeconds * 1000,
        };
        // An expired holder gives its address up now rather than at the next purge (in the same step).
        if ((await guarded(() => store.insertSession(session, now), true)) === 'taken') {
          if (custom) throw new ServiceError('prefix_taken', `The address ${address.email} is already in use`);
          continue;
        }
        void refreshCount();
        deps.onCreated?.();
        return { email: session.email, token, expiresAt: new Date(session.expiresAt) } satisfies CreatedSession;
      }
      throw new ServiceError('internal', 'Could not find a free random address; try again');
    },

    ...inboxReads({ store, clock, guarded, onFreed: deps.onFreed }),

    ...smtpRecipients({
      store,
      config,
      clock,
      guarded,
      storeFor,
      ourDomains,
      makeInbox: config.catchAll ? (key) => makeInbox(key) : undefined,
    }),
    ...externalIntake({ store, config, clock, guarded, storeFor, storageFull: deps.storageFull }),

    watchInbox(token, onMail, onGone) {
      return inboxWatch.watch(hashToken(token), onMail, onGone);
    },

    async health(): Promise<ServiceHealth> {
      await storage.check();
      let sessions = sessionCount;
      try {
        sessions = sessionCount = await store.countSessions();
      } catch (err) {
        storage.failed(err);
      }
      const detail = storage.detail();
      return detail === undefined
        ? { ok: true, storage: 'ok', sessions }
        : { ok: false, storage: 'failing', detail, sessions };
    },

    storageServes: () => storage.check(),

    async purgeExpired() {
      const removed = await guarded(() => store.purgeExpired(clock()), true);
      if (removed > 0) deps.onFreed?.();
      await refreshCount();
      return removed;
    },

    async close() {
      await notices?.close();
      await store.close();
    },
  };

  /** Catch-all: the inbox of `key` (a name at one of our domains), made now; false when it cannot be. */
  async function makeInbox(key: string): Promise<boolean> {
    const at = key.lastIndexOf('@');
    const domainId = ourDomains().indexOf(key.slice(at + 1)) + 1;
    if (domainId === 0 || !checkPrefix(key.slice(0, at)).ok) return false;
    try {
      const created = await service.createSession({ prefix: key.slice(0, at), domainId, clientAddress: 'catch-all' });
      deps.onCatchAll?.(created);
      return true;
    } catch (error) {
      // Made meanwhile by another message's RCPT: it is there all the same.
      return error instanceof ServiceError && error.code === 'prefix_taken';
    }
  }

  return service;
}
