/**
 * The Postgres Store: any number of `serve` instances on one database (node-postgres, pooled). Nothing is
 * read at open but the schema version, so start-up does not grow with what is stored, and nothing is
 * cached but RCPT's answers, a second at most (recent-recipients.ts): another instance may change any
 * row at any time.
 *
 * What must hold across instances is one transaction each: a name is claimed under an advisory lock on
 * its address (insertSession), a batch of deliveries counts and appends under the row locks of its
 * sessions, taken in id order so two batches never deadlock (deliver: delivery-queue.ts groups the
 * deliveries that arrive together into one transaction; with a storage cap, under one more advisory lock,
 * against the totals the message triggers keep: migration 7), per-client hits are counted under an
 * advisory lock on the client (hitRateLimit, one function call), and one instance sweeps at a time (purgeExpired, a
 * session-level advisory lock tried, never waited for).
 *
 * A delivery resolves only after COMMIT, so SMTP's 250 means committed, also when the COMMIT's answer is
 * lost (deliver.ts). Each session row holds its message count (kept by trigger, migration 6), so the
 * inbox limit, RCPT's count and check-mail's version read one row, never count the messages.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  StoreClosedError,
  UnknownSessionError,
  type Block,
  type BlockKind,
  type Delivery,
  type FetchClaim,
  type FetchCursor,
  type FetchStatus,
  type FoundMessage,
  type MailNoticeEvents,
  type MailNotices,
  type MessageFilter,
  type NewMessage,
  type RateRule,
  type RecipientInbox,
  type SessionInbox,
  type StorageCaps,
  type StorageUsage,
  type Store,
  type StoredMessage,
  type StoredMessageMeta,
  type StoredSession,
} from '../store';
import { PgFetchClaims, readCursor, readStatus, writeCursor, writeStatus } from './fetch-state';
import { migrate } from './schema/migrations';
import { deliverBatch, type BatchReport } from './delivery/deliver';
import { DeliveryQueue, type QueueLimits } from './delivery/delivery-queue';
import * as inbox from './inbox';
import { PgMailNotices } from './mail-notices';
import { deleteBlock, findMessages, listBlocks, putBlock } from './admin-queries';
import { recountUsage, storageUsage } from './usage';
import { createPool, prepared, query, withClient } from './connection/pool';
import { RecentRecipients } from './recipients/recent-recipients';
import { RecipientReads } from './recipients/recipient-reads';
import { GroupedReads } from './grouped-reads';
import * as sessions from './sessions';
import type { StoreLog } from '../store-log';

export interface PostgresStoreOptions {
  url: string;
  /** Most connections this instance holds (default 10). */
  poolSize?: number;
  /** One line per notable event (migration, lost idle connection, unknown COMMIT outcome). */
  log?: StoreLog;
  /** How long to keep asking whether a COMMIT whose answer was lost happened (default 30 s). */
  commitCheckMs?: number;
  /** How many deliveries one transaction may take (group commit; `deliveries: 1` turns grouping off). */
  batch?: QueueLimits;
  /** Called after each batch of deliveries (the bench measures the lock hold with it). */
  onBatch?: (report: BatchReport) => void;
  /** Called with the addresses of each grouped RCPT read (tests count the queries with it). */
  onRecipientRead?: (addresses: number) => void;
  /** Called with the tokens of each grouped check-mail read (tests count the queries with it). */
  onInboxRead?: (tokens: number) => void;
  /** How long an RCPT answer is kept (recent-recipients.ts; default RECENT_MS, one second). */
  recipientsRecentMs?: number;
}

/** The Postgres-backed Store. */
export class PostgresStore implements Store {
  private pool: pg.Pool | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';
  private readonly pending = new Set<Promise<unknown>>();
  private readonly log: StoreLog;
  private readonly fetchClaims: PgFetchClaims;
  private readonly deliveries: DeliveryQueue;
  /** RCPT TO's recent answers (recent-recipients.ts), and its reads, several addresses a query (recipient-reads.ts). */
  private readonly recent: RecentRecipients;
  private readonly recipients: RecipientReads;
  /** check-mail's reads, several tokens a query (grouped-reads.ts). */
  private readonly inboxes: GroupedReads<SessionInbox>;
  /** This instance's name in the mail notices it sends (mail-notices.ts), so it can skip its own. */
  private readonly instance = randomUUID();

  constructor(private readonly options: PostgresStoreOptions) {
    this.log = options.log ?? (() => undefined);
    this.recent = new RecentRecipients(options.recipientsRecentMs);
    this.recipients = new RecipientReads(
      (work) => this.run(work),
      this.recent,
      (n) => options.onRecipientRead?.(n),
    );
    this.inboxes = new GroupedReads({
      run: (work) => this.run(work),
      readAll: inbox.inboxesByTokenHash,
      copy: (found) => ({ session: { ...found.session }, version: found.version }),
      onRead: options.onInboxRead,
    });
    this.fetchClaims = new PgFetchClaims(options.url, this.log);
    const deliverOptions = { commitCheckMs: options.commitCheckMs, instance: this.instance, log: this.log };
    this.deliveries = new DeliveryQueue(
      (batch, state) => deliverBatch(this.pool!, batch, deliverOptions, state, options.onBatch),
      options.batch,
    );
  }

  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('PostgresStore.open() called twice');
    const pool = createPool({ url: this.options.url, max: this.options.poolSize, log: this.log });
    try {
      const applied = await withClient(pool, migrate);
      if (applied.length > 0)
        this.log(`database schema migrated to version ${applied.at(-1)}`, { level: 'info', event: 'storage.migrated' });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    this.pool = pool;
    this.state = 'open';
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    await Promise.allSettled([...this.pending]);
    await this.fetchClaims.close();
    if (wasOpen) await this.pool?.end();
  }

  /** Runs an operation while counting it in flight, so close() waits for it. */
  /** The pool's connections now (the metrics): held by a query, idle, and queries waiting for one. */
  poolCounts(): { inUse: number; idle: number; waiting: number } {
    const pool = this.pool;
    return pool
      ? { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }
      : { inUse: 0, idle: 0, waiting: 0 };
  }

  private run<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    if (this.state !== 'open' || !this.pool) return Promise.reject(new StoreClosedError());
    const p = work(this.pool);
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  private session(where: string, values: unknown[]): Promise<StoredSession | undefined> {
    return this.run((pool) => sessions.sessionWhere(pool, where, values));
  }

  putSession(session: StoredSession): Promise<void> {
    this.forgetSession(session);
    return this.run((pool) => sessions.putSession(pool, session)).finally(() => this.forgetSession(session));
  }

  /** A session this instance writes is forgotten by RCPT's recent answers, before and after. */
  private forgetSession(session: StoredSession): void {
    this.recent.forget([session.id]);
    this.recent.forgetAddress(session.addressKey);
  }

  insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'> {
    this.forgetSession(session);
    return this.run((pool) => sessions.insertSession(pool, session, now)).finally(() => this.forgetSession(session));
  }

  getSession(id: string): Promise<StoredSession | undefined> {
    return this.session('id = $1', [id]);
  }

  getSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    return this.session('token_hash = $1', [tokenHash]);
  }

  findSessionByAddress(addressKey: string): Promise<StoredSession | undefined> {
    return this.session('address_key = $1 ORDER BY created_at DESC LIMIT 1', [addressKey]);
  }

  recipientInbox(addressKey: string, fresh?: boolean): Promise<RecipientInbox | undefined> {
    return this.recipients.read(addressKey, fresh);
  }

  listSessions(): Promise<StoredSession[]> {
    return this.run(sessions.listSessions);
  }

  countSessions(): Promise<number> {
    return this.run(sessions.countSessions);
  }

  deleteSession(id: string): Promise<boolean> {
    this.recent.forget([id]);
    return this.run((pool) => sessions.deleteSession(pool, id)).finally(() => this.recent.forget([id]));
  }

  purgeExpired(now: number): Promise<number> {
    return this.run((pool) => sessions.purgeExpired(pool, now));
  }

  async addMessage(sessionId: string, message: NewMessage): Promise<StoredMessageMeta> {
    const { stored } = await this.deliver([sessionId], message, Infinity);
    const meta = stored.get(sessionId);
    if (!meta) throw new UnknownSessionError();
    return meta;
  }

  async deliver(
    sessionIds: readonly string[],
    message: NewMessage,
    inboxLimit: number,
    caps?: StorageCaps,
  ): Promise<Delivery> {
    const delivery = await this.run(() => this.deliveries.deliver(sessionIds, message, inboxLimit, caps));
    this.recent.stored(delivery.stored.keys());
    if (delivery.full.length + delivery.gone.length > 0) this.recent.forget([...delivery.full, ...delivery.gone]);
    return delivery;
  }

  deliveryComing(): () => void {
    return this.deliveries.announce();
  }

  findMessages(filter: MessageFilter, limit: number): Promise<FoundMessage[]> {
    return this.run((pool) => findMessages(pool, filter, limit));
  }

  listBlocks(): Promise<Block[]> {
    return this.run(listBlocks);
  }

  putBlock(block: Block): Promise<boolean> {
    return this.run((pool) => putBlock(pool, block));
  }

  deleteBlock(kind: BlockKind, value: string): Promise<boolean> {
    return this.run((pool) => deleteBlock(pool, kind, value));
  }

  /** Also what keeps RCPT's recent answers true (recent-recipients.ts): a session deleted or given mail elsewhere is forgotten. */
  listenForMail(events: MailNoticeEvents): MailNotices {
    const recent = this.recent;
    const heard: MailNoticeEvents = {
      ...events,
      onMail: (hashes) => {
        recent.storedElsewhere(hashes);
        events.onMail(hashes);
      },
      onGap: () => {
        recent.clear();
        events.onGap();
      },
      onGone: (hashes) => {
        recent.forgetHashes(hashes);
        events.onGone?.(hashes);
      },
    };
    return new PgMailNotices(this.options.url, this.instance, heard, this.log, (on) => {
      recent.listening(on);
      events.onListening?.(on);
    });
  }

  listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    return this.run((pool) => inbox.listMessages(pool, sessionId));
  }

  inboxVersion(sessionId: string): Promise<string | undefined> {
    return this.run((pool) => inbox.inboxVersion(pool, sessionId));
  }

  inboxByTokenHash(tokenHash: string): Promise<SessionInbox | undefined> {
    return this.inboxes.read(tokenHash);
  }

  getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    return this.run((pool) => inbox.getMessage(pool, sessionId, id));
  }

  countMessages(sessionId: string): Promise<number> {
    return this.run((pool) => inbox.countMessages(pool, sessionId));
  }

  deleteMessage(sessionId: string, id: number): Promise<boolean> {
    return this.run((pool) => inbox.deleteMessage(pool, sessionId, id));
  }

  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    return this.run((pool) => inbox.rawMessage(pool, sessionId, id));
  }

  attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    return this.run((pool) => inbox.attachmentBytes(pool, sessionId, id, attachmentId));
  }

  /** One round trip: tempmail_rate_hit (schema.ts) counts and inserts under the key's advisory lock. */
  hitRateLimit(key: string, now: number, rule: RateRule, cost = 1): Promise<number> {
    return this.run(async (pool) => {
      if (rule.limit <= 0) return 0;
      const rows = await query<{ wait: number }>(pool, 'SELECT tempmail_rate_hit($1, $2, $3, $4, $5) AS wait', [
        key,
        new Date(now),
        rule.windowMs,
        rule.limit,
        cost,
      ]);
      return rows[0]?.wait ?? 0;
    });
  }

  getFetchCursor(account: string, folder: string): Promise<FetchCursor | undefined> {
    return this.run((pool) => readCursor(pool, account, folder));
  }

  putFetchCursor(account: string, folder: string, cursor: FetchCursor): Promise<void> {
    return this.run((pool) => writeCursor(pool, account, folder, cursor));
  }

  claimFetch(account: string): Promise<FetchClaim | undefined> {
    return this.run(() => this.fetchClaims.claim(account));
  }

  getFetchStatus(account: string): Promise<FetchStatus | undefined> {
    return this.run((pool) => readStatus(pool, account));
  }

  putFetchStatus(account: string, status: FetchStatus): Promise<void> {
    return this.run((pool) => writeStatus(pool, account, status));
  }

  readonly keepsUsage = true;

  usage(recount = false): Promise<StorageUsage> {
    return this.run((pool) => (recount ? recountUsage(pool, this.log) : storageUsage(pool)));
  }

  probe(): Promise<boolean> {
    return this.run(async (pool) => {
      await pool.query(prepared('SELECT 1'));
      return true;
    });
  }
}
