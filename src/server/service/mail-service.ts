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
import { createInboxWatch, type InboxWatch } from './inbox-watch';
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

/** What a store operation runs under (MailService's guard): failures become storage_unavailable. */
export type Guarded = <T>(work: () => Promise<T>, isWrite?: boolean) => Promise<T>;

/** Parses a message and stores it for its targets (session id -> the recipient it came for). */
type StoreFor = (
  targets: Map<string, string>,
  raw: Buffer,
  envelopeFrom: string,
  now: number,
  sessions?: Map<string, StoredSession>,
  clientIp?: string,
) => Promise<DeliverOutcome>;

/** Our domains in lower case, read from `config` at each use: a reload (SIGHUP, src/server/reload/) changes it in place. */
export function domainsOf(config: Pick<ServerConfig, 'domains'>): () => string[] {
  let readFrom: string[] | undefined;
  let lowered: string[] = [];
  return () => {
    if (config.domains !== readFrom) {
      readFrom = config.domains;
      lowered = readFrom.map((d) => d.toLowerCase());
    }
    return lowered;
  };
}

/**
 * Runs store operations for the service: a rejection becomes storage_unavailable and tells the storage
 * health (its reason goes to the log, never into the answer); a success of a write clears it. Shutting
 * down (StoreClosedError) is not a storage fault: "try later" without marking health failing.
 */
export function storageGuard(storage: Pick<StorageHealth, 'failed' | 'succeeded'>): Guarded {
  const storageError = (err: unknown): ServiceError => {
    if (err instanceof ServiceError) return err;
    if (err instanceof StoreClosedError) {
      return new ServiceError('storage_unavailable', 'The service is shutting down; try again later');
    }
    storage.failed(err);
    return new ServiceError('storage_unavailable', 'Mail storage is unavailable; try again later');
  };
  return async (work, isWrite = false) => {
    try {
      const result = await work();
      if (isWrite) storage.succeeded();
      return result;
    } catch (err) {
      throw storageError(err);
    }
  };
}

/**
 * After a gap in the notices a deletion's may have been missed too: each watched session is looked up
 * once, and the watchers of one that is gone are told (their event streams end). One read per watched
 * session, only after the listening connection came back; a failed read leaves that watch as it is.
 */
async function endDeletedWatches(store: Store, inboxWatch: InboxWatch): Promise<void> {
  for (const hash of inboxWatch.watched()) {
    const session = await store.getSessionByTokenHash(hash).catch(() => null);
    if (session === undefined) inboxWatch.gone([hash]);
  }
}

/** Mail other services on the same store deliver (Postgres) reaches this one's watchers too. */
function listenToOtherServices(store: Store, inboxWatch: InboxWatch, deps: MailServiceDeps) {
  return store.listenForMail?.({
    onMail: (hashes) => inboxWatch.announce(hashes),
    onGap: () => {
      inboxWatch.announceAll();
      void endDeletedWatches(store, inboxWatch);
    },
    onGone: (hashes) => inboxWatch.gone(hashes),
    onBlocks: () => deps.onBlocksChanged?.(),
    onListening: (up) => deps.onListening?.(up),
  });
}

/**
 * Parses `raw` and stores it for `targets` (session id -> the recipient it came for) under the inbox
 * limit: the one parse and store path of mail, whether it came by SMTP or was fetched over IMAP.
 */
function mailStorer(deps: MailServiceDeps, guarded: Guarded, inboxWatch: InboxWatch): StoreFor {
  const { store, config } = deps;
  return async (targets, raw, envelopeFrom, now, sessions, clientIp) => {
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
  };
}

/** What createSession needs beside the service's deps. */
interface SessionMaking {
  clock: Clock;
  limits: ClientLimits;
  guarded: Guarded;
  ourDomains: () => string[];
  accountActive: (id: number) => boolean;
  /** A session was stored (the count is read again, the metrics told). */
  created: () => void;
}

/**
 * create-session: the per-client rate, a custom name checked (or random names tried until one is free),
 * the address at a domain or an external account, stored by one atomic insert.
 */
function sessionMaker(deps: MailServiceDeps, m: SessionMaking): MailService['createSession'] {
  const { store, config } = deps;
  const { clock, limits, guarded, ourDomains, accountActive } = m;
  const pickAccount = roundRobin();
  return async (input) => {
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
      m.created();
      return { email: session.email, token, expiresAt: new Date(session.expiresAt) } satisfies CreatedSession;
    }
    throw new ServiceError('internal', 'Could not find a free random address; try again');
  };
}

/** Catch-all: the inbox of `key` (a name at one of our domains), made now; false when it cannot be. */
function catchAllInbox(
  ourDomains: () => string[],
  createSession: MailService['createSession'],
  onCatchAll: MailServiceDeps['onCatchAll'],
): (key: string) => Promise<boolean> {
  return async (key) => {
    const at = key.lastIndexOf('@');
    const domainId = ourDomains().indexOf(key.slice(at + 1)) + 1;
    if (domainId === 0 || !checkPrefix(key.slice(0, at)).ok) return false;
    try {
      const created = await createSession({ prefix: key.slice(0, at), domainId, clientAddress: 'catch-all' });
      onCatchAll?.(created);
      return true;
    } catch (error) {
      // Made meanwhile by another message's RCPT: it is there all the same.
      return error instanceof ServiceError && error.code === 'prefix_taken';
    }
  };
}

/** Builds the MailService on an opened store. */
export function createMailService(deps: MailServiceDeps): MailService {
  const { store, config } = deps;
  const clock = deps.clock ?? systemClock;
  const log = asLogger(deps.log);
  const ourDomains = domainsOf(config);
  const limits = deps.limits ?? new ClientLimits(store, ratesOf(config), clock);
  const storage = deps.health ?? new StorageHealth({ probe: () => store.probe(), log });
  const guarded = storageGuard(storage);
  let sessionCount = 0;
  const inboxWatch = createInboxWatch();
  const notices = listenToOtherServices(store, inboxWatch, deps);
  const refreshCount = () =>
    store.countSessions().then(
      (n) => {
        sessionCount = n;
      },
      () => undefined,
    );
  void refreshCount();
  const storeFor = mailStorer(deps, guarded, inboxWatch);
  const accountActive = deps.accountActive ?? (() => true);
  const created = () => {
    void refreshCount();
    deps.onCreated?.();
  };
  const createSession = sessionMaker(deps, { clock, limits, guarded, ourDomains, accountActive, created });
  const makeInbox = config.catchAll ? catchAllInbox(ourDomains, createSession, deps.onCatchAll) : undefined;

  return {
    listDomains() {
      return {
        domains: ourDomains().map((domain, i) => ({ id: i + 1, domain })),
        // Ids stay the accounts' places in the configuration, whichever are listed now.
        extmailAccounts: config.extmailAccounts
          .map((a, i) => ({ id: i + 1, email: a.email }))
          .filter((a) => accountActive(a.id)),
      };
    },
    createSession,
    ...inboxReads({ store, clock, guarded, onFreed: deps.onFreed }),
    ...smtpRecipients({ store, config, clock, guarded, storeFor, ourDomains, makeInbox }),
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
}
