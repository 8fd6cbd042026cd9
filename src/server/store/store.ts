/**
 * The storage contract of the reference service (inbucket-style: one interface, one shared test suite in
 * test/server/store/store-suite.ts that every implementation passes). The mail service is the only user; the
 * protocol front ends never touch a Store.
 *
 * Three stores implement it: memory (tests), file (the embedded default: one service per data dir) and
 * Postgres (any number of services on one database). A Store keeps data as given: it does not validate
 * addresses, check expiry or sanitize text (a subject may hold NUL or a lone surrogate, and comes back
 * as it went in). Every write resolves only once it is durable (the file store: on disk and fsync'd;
 * Postgres: committed), and every failure (EROFS, ENOSPC, ENOTDIR, a lost database connection...)
 * surfaces as a rejection carrying the underlying error.
 *
 * Where several services share one store (Postgres), everything that must hold across them is one store
 * operation, atomic in the store, never a read in the service followed by a write: claiming an address
 * (insertSession), the inbox limit and the storage cap (deliver), the per-client rates (hitRateLimit) and the expiry
 * sweep (purgeExpired). A store shared that way keeps no cache of what another service can change.
 *
 * Its parts for external mail accounts (store-fetch.ts) and for the admin API (store-admin.ts) are in
 * files of their own.
 */
import type { AdminStore } from './store-admin';
import type { FetchStore } from './store-fetch';
import type { StoredMessageMeta, StoredSession } from './stored-records';

export type { StoredAttachmentMeta, StoredMessageMeta, StoredSession } from './stored-records';

/** The parsed body: read on demand, not kept in memory. */
export interface StoredMessageBody {
  to: string[];
  cc: string[];
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
  /**
   * Set when the message was stored without its MIME parse (mail/quick-summary.ts: a plain message with
   * no attachment, whose listing fields were read from its header): to, cc, text, html and headers are
   * then empty, and the reader parses the raw message (inbox-reads.ts). A store keeps it as given.
   */
  parseOnRead?: true;
}

export type StoredMessage = StoredMessageMeta & StoredMessageBody;

/** What addMessage takes: everything but the id (assigned by the store) and the derived sizes. */
export interface NewMessage extends StoredMessageBody {
  senderName: string;
  senderEmail: string;
  subject: string;
  receivedAt: number;
  /** The message exactly as received. */
  raw: Buffer;
  attachments: { filename: string; contentType: string; bytes: Buffer }[];
  /** Where it came from (SMTP): kept with it for the admin API. */
  clientIp?: string;
  envelopeFrom?: string;
}

/** The outcome of Store.deliver. */
export interface Delivery {
  /** The stored copy of each session that took the message, by session id. Empty when `full` is not. */
  stored: Map<string, StoredMessageMeta>;
  /** Sessions already holding `inboxLimit` messages. When any is full, nothing was stored anywhere. */
  full: string[];
  /** Sessions that no longer exist (deleted or purged meanwhile): skipped, the others still receive. */
  gone: string[];
  /** Its copies would have passed the storage cap given to deliver: nothing was stored for anyone. */
  capped?: true;
}

/** A session with how many messages it holds (Store.recipientInbox). */
export interface RecipientInbox {
  session: StoredSession;
  messages: number;
  /**
   * A recent answer kept by the store (Postgres, up to a second old), not read now: a refusal must not
   * rest on it (ask again with `fresh`).
   */
  recent?: boolean;
}

/** A session with its inbox's version (Store.inboxByTokenHash). */
export interface SessionInbox {
  session: StoredSession;
  /** Store.inboxVersion of the session, read with it. */
  version: string;
}

/**
 * Store.recipientInbox and Store.inboxByTokenHash from the reads they join, for a store where one read
 * costs no round trip (the file and memory stores; Postgres asks the database once).
 */
export const joinedReads = {
  async recipientInbox(
    store: Pick<Store, 'findSessionByAddress' | 'countMessages'>,
    addressKey: string,
  ): Promise<RecipientInbox | undefined> {
    const session = await store.findSessionByAddress(addressKey);
    return session && { session, messages: await store.countMessages(session.id) };
  },
  async inboxByTokenHash(
    store: Pick<Store, 'getSessionByTokenHash' | 'inboxVersion'>,
    tokenHash: string,
  ): Promise<SessionInbox | undefined> {
    const session = await store.getSessionByTokenHash(tokenHash);
    const version = session && (await store.inboxVersion(session.id));
    return session && version !== undefined ? { session, version } : undefined;
  },
};

/** What Store.usage() measures. */
export interface StorageUsage {
  messages: number;
  bytes: number;
}

/** The cap on what is stored in all (src/server/limits/storage-cap.ts). */
export interface StorageCaps {
  /** 0 = no cap. */
  maxMessages: number;
  /** 0 = no cap. */
  maxBytes: number;
}

/** How long rate-limit hits are kept (the longest window a rule may have). */
export const RATE_HITS_KEEP_MS = 10 * 60_000;

/** A sliding-window rate rule: at most `limit` hits per key in any `windowMs` (a limit <= 0: no limit). */
export interface RateRule {
  limit: number;
  windowMs: number;
}

export type { Block, BlockKind, FoundMessage, MailNoticeEvents, MailNotices, MessageFilter } from './store-admin';
export type { FetchClaim, FetchCursor, FetchStatus } from './store-fetch';

export interface Store extends FetchStore, AdminStore {
  /** Prepares the store (creates directories, loads the index, cleans crash leftovers). Call once. */
  open(): Promise<void>;
  /** Waits for writes in flight, then refuses further calls. Idempotent. */
  close(): Promise<void>;

  /** Creates or replaces a session, whatever holds its address; resolves when durable. */
  putSession(session: StoredSession): Promise<void>;
  /**
   * Adds a new session unless a live session (expiresAt > now) holds its addressKey: 'taken' then, and
   * nothing changes. An expired holder of the address is removed with its messages in the same step.
   * Atomic against every other insertSession for that address, in every service sharing the store, so
   * two requests for one custom name never both win.
   */
  insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'>;
  getSession(id: string): Promise<StoredSession | undefined>;
  getSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined>;
  /** The session holding this routing key (the newest one if, after a takeover, two ever did). */
  findSessionByAddress(addressKey: string): Promise<StoredSession | undefined>;
  /**
   * findSessionByAddress and that session's countMessages in one read (SMTP's RCPT TO asks both). A store
   * may answer a found address from what it read a moment ago (marked `recent`); `fresh` reads now.
   */
  recipientInbox(addressKey: string, fresh?: boolean): Promise<RecipientInbox | undefined>;
  listSessions(): Promise<StoredSession[]>;
  countSessions(): Promise<number>;
  /** Removes a session and all its messages; false when it was not there. */
  deleteSession(id: string): Promise<boolean>;
  /**
   * Removes every session with expiresAt <= now, with its messages, and forgets rate-limit hits older
   * than any window; returns how many sessions went. One sweep at a time across the services sharing
   * the store: a call made while another service sweeps returns 0 at once.
   */
  purgeExpired(now: number): Promise<number>;

  /** Stores a message for a session, with no limit; resolves with its id only once it is durable. Rejects for an unknown session. */
  addMessage(sessionId: string, message: NewMessage): Promise<StoredMessageMeta>;
  /**
   * Stores one incoming message (one SMTP DATA) for each of `sessionIds`, only while every one of them
   * holds fewer than `inboxLimit` messages: the inbox limit is exact at the moment a message is stored,
   * whatever RCPT TO saw. All or nothing over the limit: when any session is full nothing is stored and
   * `full` names it (SMTP then answers 452 4.2.2; at the sender's retry RCPT TO refuses the full
   * mailbox and the others get the message once). Sessions that no longer exist are skipped (`gone`).
   * The count and the append are one atomic step against every other deliver to those sessions, in
   * every service sharing the store (Postgres: one transaction holding the sessions' row locks; file
   * and memory: slots counted and reserved before the first await). Resolves once every copy is durable;
   * on a failure no copy is kept where the store can undo it (Postgres: the transaction rolls back).
   *
   * With `caps`, a store shared by several services (Postgres) also keeps the storage cap in the same
   * step: when the copies that would be stored, beside everything stored (by any service), would pass a
   * cap, nothing is stored and `capped` says so. A store one service owns (file, memory) ignores it:
   * that service's own count is exact (src/server/limits/storage-cap.ts).
   */
  deliver(
    sessionIds: readonly string[],
    message: NewMessage,
    inboxLimit: number,
    caps?: StorageCaps,
  ): Promise<Delivery>;
  /**
   * A message for deliver() is on its way (an SMTP client is sending its body): a store that groups
   * deliveries into one COMMIT (Postgres) holds a batch a moment for it. Call the returned function once
   * the body has arrived, whatever becomes of the message. A store without grouping leaves it out.
   */
  deliveryComing?(): () => void;
  /** Summaries in increasing id order (oldest first). */
  listMessages(sessionId: string): Promise<StoredMessageMeta[]>;
  /**
   * An opaque version of a session's listing, undefined for an unknown session: it changes whenever
   * listMessages' answer changes (a message stored or deleted), as every service sharing the store sees
   * it, and two reads of one session that give the same version saw the same listing (also across a
   * restart). Cheap enough to ask on every check-mail: it lets a service keep a listing it built and
   * know, without reading the listing again, that another service has not changed it.
   */
  inboxVersion(sessionId: string): Promise<string | undefined>;
  /**
   * getSessionByTokenHash and inboxVersion in one read (check-mail asks both at every poll): Postgres
   * reads them from one row, so a poll of an unchanged inbox costs one indexed read.
   */
  inboxByTokenHash(tokenHash: string): Promise<SessionInbox | undefined>;
  getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined>;
  countMessages(sessionId: string): Promise<number>;
  /** False when it was not there. */
  deleteMessage(sessionId: string, id: number): Promise<boolean>;
  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined>;
  attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined>;

  /**
   * Counts `cost` hits (default one; all or none) by `key` (a rule's name and a client, e.g. "create
   * 192.0.2.7", "http 192.0.2.7") at `now` under `rule`: 0 when allowed (and counted), else the whole
   * seconds, at least 1, until they fit (and not counted, so waiting the answer out always works). The counts live with the sessions:
   * services sharing a store share them (src/server/limits/ uses this for every per-client rate). Hits are
   * kept for RATE_HITS_KEEP_MS at most: a rule's window is never longer.
   */
  hitRateLimit(key: string, now: number, rule: RateRule, cost?: number): Promise<number>;

  /**
   * How much mail is stored, for the storage cap and the metrics (src/server/limits/storage-cap.ts).
   * `messages` is exact; `bytes` is what the storage holds for them: the message files of a data dir, the
   * message table of a database as it sits on disk (with its indexes and unreclaimed space). It may take a
   * while (a data dir is walked): call it now and then, not per message.
   *
   * Postgres keeps the totals (migration 7: the messages and their sizes as received, by trigger, so
   * reading them is one cheap query) and says so with `keepsUsage`; `recount` then counts the messages
   * too and corrects the kept totals should they differ (logged), a scan of the message table.
   */
  usage(recount?: boolean): Promise<StorageUsage>;
  /** usage() reads totals the store keeps (cheap: may be asked before each refusal); absent: it measures. */
  readonly keepsUsage?: boolean;

  /**
   * Asks the storage whether it serves now (observe/storage-health.ts: /health, /ready, EHLO). Postgres
   * makes one round trip to the database; the file store checks its file system has room and writes (and
   * removes) a small file: both resolve true. The memory store has nothing to ask and resolves false
   * ("not checked"), so health keeps reporting the last write's outcome. Rejects with the reason when
   * the storage does not serve.
   */
  probe(): Promise<boolean>;
}

/** The error a store rejects with when used after close(). */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  readonly code = 'ESTORECLOSED';
  constructor() {
    super('store is closed');
  }
}

/** The error a store rejects with when a message is added to a session it does not hold. */
export class UnknownSessionError extends Error {
  override readonly name = 'UnknownSessionError';
  readonly code = 'ENOSESSION';
  constructor() {
    super('no such session');
  }
}

/** "ENOTDIR: not a directory" from a Node error, without the path. */
export function storageErrorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = typeof e?.message === 'string' ? (e.message.split(',')[0] ?? '') : String(err);
  if (e?.code && message === '') return String(e.code); // an AggregateError of a failed connect has no message
  return e?.code && !message.startsWith(e.code) ? `${e.code}: ${message}` : message;
}
