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
import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { formatWireTime } from '../platform/time';
import { checkPrefix, randomLocalPart } from './mail/addresses';
import { systemClock, type Clock, type ServerConfig } from './server-config';
import { parseMessage } from './mail/mime';
import { externalIntake } from './external-intake';
import { smtpRecipients } from './smtp-recipients';
import { ClientLimits, ratesOf } from './limits/client-limits';
import { asLogger } from './observe/log';
import { StorageHealth } from './observe/storage-health';
import { addressFor, chooseTarget, roundRobin } from './mail/session-target';
import { createInboxWatch } from './inbox-watch';
import {
  ServiceError,
  type AttachmentMeta,
  type CreatedSession,
  type DeliverOutcome,
  type InboxView,
  type MailService,
  type MessageFull,
  type MessageMeta,
  type ServiceHealth,
} from './service-types';
import {
  StoreClosedError,
  type Store,
  type StoredMessageMeta,
  type StoredSession,
} from './store/store';

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
  /**
   * Whether external account `id` (1-based) is active now: one whose mail is fetched over IMAP is
   * listed by GET /domains and handed out only while its connection is healthy. Default: all are.
   */
  accountActive?: (id: number) => boolean;
}

/** How many random local parts to try before giving up (each collides with odds ~ sessions / 163M). */
const RANDOM_ATTEMPTS = 20;

/**
 * The one-shot digest (Node >= 20.12), read off the namespace so an older Node 20 links and falls back.
 * Every request that carries a token hashes it: the one-shot form skips the Hash stream object, which a
 * CPU profile of check-mail under load showed as a third of the handler's own time.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** sha256 of a token (its UTF-8 bytes), hex: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Builds the MailService on an opened store. */
export function createMailService(deps: MailServiceDeps): MailService {
  const { store, config } = deps;
  const clock = deps.clock ?? systemClock;
  const log = asLogger(deps.log);
  const domains = config.domains.map((d) => d.toLowerCase());
  const limits = deps.limits ?? new ClientLimits(store, ratesOf(config), clock);
  const storage = deps.health ?? new StorageHealth({ probe: () => store.probe(), log });
  let sessionCount = 0;
  const pickAccount = roundRobin();
  const inboxWatch = createInboxWatch();

  const refreshCount = () =>
    store.countSessions().then(
      (n) => void (sessionCount = n),
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

  function requiredToken(token: string): string {
    if (typeof token !== 'string' || token === '') throw new ServiceError('invalid_token', 'A session token is required');
    return token;
  }

  /** `session` when it is there and live, or the error the caller must answer with. */
  function liveSession(session: StoredSession | undefined): StoredSession {
    if (!session) throw new ServiceError('invalid_token', 'Unknown session token; create a new address');
    if (session.expiresAt <= clock()) {
      throw new ServiceError(
        'session_expired',
        `This address expired at ${formatWireTime(new Date(session.expiresAt))} UTC; create a new one`,
      );
    }
    return session;
  }

  /** The live session of a token, or the error the caller must answer with. */
  async function sessionOf(token: string): Promise<StoredSession> {
    return liveSession(await guarded(() => store.getSessionByTokenHash(hashToken(requiredToken(token)))));
  }

  function notFound(id: number): ServiceError {
    return new ServiceError('not_found', `No message with id ${Number.isFinite(id) ? id : '?'} in this inbox`);
  }

  function toMeta(m: StoredMessageMeta): MessageMeta {
    return {
      id: m.id,
      senderName: m.senderName,
      senderEmail: m.senderEmail,
      subject: m.subject,
      receivedAt: new Date(m.receivedAt),
      hasAttachments: m.attachments.length > 0,
    };
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
  ): Promise<DeliverOutcome> {
    if (targets.size === 0) return { delivered: 0 };
    const fields = await parseMessage(raw, envelopeFrom);
    // The inbox limit is decided here, where the message is stored, not at RCPT TO: parallel
    // connections (or other services on the same store) may have filled the inbox since.
    const result = await guarded(() => store.deliver([...targets.keys()], { ...fields, raw, receivedAt: now }, config.inboxLimit), true);
    // A session purged between RCPT and now simply no longer receives (it is in result.gone).
    if (result.full.length > 0) return { delivered: 0, full: result.full.map((id) => targets.get(id) ?? id) };
    if (result.stored.size > 0) deps.onStored?.(result.stored.size, raw.length);
    if (sessions) inboxWatch.announce([...result.stored.keys()].flatMap((id) => sessions.get(id)?.tokenHash ?? []));
    return { delivered: result.stored.size };
  }

  const accountActive = deps.accountActive ?? (() => true);

  return {
    listDomains() {
      return {
        domains: domains.map((domain, i) => ({ id: i + 1, domain })),
        // Ids stay the accounts' places in the configuration, whichever are listed now.
        extmailAccounts: config.extmailAccounts.map((a, i) => ({ id: i + 1, email: a.email })).filter((a) => accountActive(a.id)),
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
      const target = chooseTarget(input, domains, config.extmailAccounts, pickAccount, accountActive);
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
        return { email: session.email, token, expiresAt: new Date(session.expiresAt) } satisfies CreatedSession;
      }
      throw new ServiceError('internal', 'Could not find a free random address; try again');
    },

    async checkMail(token) {
      const session = await sessionOf(token);
      const list = await guarded(() => store.listMessages(session.id));
      return list.reverse().map(toMeta);
    },

    async inbox(token) {
      // The session and its version in one read, then (only when the caller needs it) the listing: a
      // listing read later is never older than its version, so a cache keyed by version never serves a
      // stale one.
      const found = await guarded(() => store.inboxByTokenHash(hashToken(requiredToken(token))));
      const session = liveSession(found?.session);
      const version = found!.version;
      return {
        key: session.id,
        version,
        list: async () => (await guarded(() => store.listMessages(session.id))).reverse().map(toMeta),
      } satisfies InboxView;
    },

    async readMail(token, id) {
      const session = await sessionOf(token);
      const m = await guarded(() => store.getMessage(session.id, id));
      if (!m) throw notFound(id);
      return {
        ...toMeta(m),
        to: m.to,
        cc: m.cc,
        text: m.text,
        html: m.html,
        headers: m.headers,
        attachments: m.attachments.map((a): AttachmentMeta => ({ ...a })),
      } satisfies MessageFull;
    },

    async deleteMail(token, id) {
      const session = await sessionOf(token);
      const removed = await guarded(() => store.deleteMessage(session.id, id), true);
      if (!removed) throw notFound(id);
    },

    async rawMessage(token, id) {
      const session = await sessionOf(token);
      const raw = await guarded(() => store.rawMessage(session.id, id));
      if (!raw) throw notFound(id);
      return raw;
    },

    async attachment(token, id, attachmentId) {
      const session = await sessionOf(token);
      const m = await guarded(() => store.getMessage(session.id, id));
      if (!m) throw notFound(id);
      const meta = m.attachments.find((a) => a.id === attachmentId);
      const bytes = meta && (await guarded(() => store.attachmentBytes(session.id, id, attachmentId)));
      if (!meta || !bytes) {
        throw new ServiceError('not_found', `Message ${id} has no attachment ${Number.isFinite(attachmentId) ? attachmentId : '?'}`);
      }
      return { meta: { ...meta }, bytes };
    },

    ...smtpRecipients({ store, config, clock, guarded, storeFor }),
    ...externalIntake({ store, config, clock, guarded, storeFor }),

    watchInbox(token, onMail) {
      return inboxWatch.watch(hashToken(token), onMail);
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
      return detail === undefined ? { ok: true, storage: 'ok', sessions } : { ok: false, storage: 'failing', detail, sessions };
    },

    storageServes: () => storage.check(),
    storageServing: () => storage.ok(),

    async purgeExpired() {
      const removed = await guarded(() => store.purgeExpired(clock()), true);
      await refreshCount();
      return removed;
    },

    async close() {
      await store.close();
    },
  };
}
