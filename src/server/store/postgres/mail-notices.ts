/**
 * News of delivered mail between the instances on one database (Store.listenForMail), by Postgres
 * LISTEN/NOTIFY. A delivery's transaction sends its notices (batch-sql.ts, `pg_notify` in the same
 * statement): Postgres hands them out at COMMIT, and never for a delivery that rolled back. Each
 * instance listens on a connection of its own (outside the pool, whose connections come and go) and
 * tells its watchers (GET /events streams, the app's in-process push) of mail any other instance stored.
 *
 * A notice is `{"from": <instance id>, "t": [<token hash>, ...]}`: an instance skips its own (it heard
 * of them from deliver() already). A deleted session's is `{"gone": [<token hash>]}` (sessions.ts),
 * heard by every instance, its own included: its watchers' streams end. Anyone who may write to the database may NOTIFY on the channel too,
 * so a payload is read as the untrusted text it is: what is not that shape is dropped.
 *
 * While the connection is down notices are lost (Postgres keeps none for a listener that is not there):
 * it is tried again at most a second apart, and once it is back every watcher is told mail may have come
 * (onGap), and clients list again. The same
 * connection hears of changed blocks (admin-queries.ts), so every instance applies a block at once.
 */
import type pg from 'pg';
import type { MailNoticeEvents, MailNotices } from '../store';
import { BLOCKS_CHANNEL } from './admin-queries';
import { createPool } from './connection/pool';
import type { StoreLog } from '../store-log';

/** The channel of mail notices. */
export const MAIL_CHANNEL = 'tempmail_mail';

// A notice's payload must stay under Postgres' 8000 bytes: 100 hashes of 64 hex digits, their quotes
// and separators, and the instance's name.
const HASHES_PER_NOTICE = 100;
const TOKEN_HASH = /^[0-9a-f]{64}$/;
// While the database is down the listening connection is tried again every second at most (a refused
// connection costs nothing), so push is back within about a second of the database (issue 40).
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 1000;

/**
 * One pg_notify per HASHES_PER_NOTICE sessions of `hashes` (a query of one column, token_hash, each
 * session once), sent from inside the statement that changed them, so Postgres hands them out at its
 * COMMIT and never for one that rolled back; `payload` makes each notice's JSON of its hashes' array.
 */
function noticesSql(hashes: string, payload: (list: string) => string): string {
  return `SELECT pg_notify('${MAIL_CHANNEL}', ${payload('json_agg(h.token_hash)')}::text)
      FROM (SELECT u.token_hash, (row_number() OVER () - 1) / ${HASHES_PER_NOTICE} AS part FROM (${hashes}) u) h
      GROUP BY h.part`;
}

/**
 * The notices of a delivery (postgres/delivery/batch-sql.ts), `from` the SQL of this instance's name: the payload
 * is what readNotice reads, {"from": ..., "t": [...]}.
 */
export function notifySql(hashes: string, from: string): string {
  return noticesSql(hashes, (list) => `json_build_object('from', ${from}, 't', ${list})`);
}

/** The notices of sessions deleted (sessions.ts), `{"gone": [...]}` (readGone), heard by every instance. */
export function goneSql(hashes: string): string {
  return noticesSql(hashes, (list) => `json_build_object('gone', ${list})`);
}

/** The token hashes of a payload from another instance than `self`; [] for anything else. */
export function readNotice(payload: string | undefined, self: string): string[] {
  if (payload === undefined || payload.length > 8000) return [];
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return [];
  }
  if (!data || typeof data !== 'object') return [];
  const { from, t } = data as { from?: unknown; t?: unknown };
  if (typeof from !== 'string' || from === self || !Array.isArray(t)) return [];
  return t.filter((h): h is string => typeof h === 'string' && TOKEN_HASH.test(h));
}

/** The token hashes of a deletion's notice (`{"gone": [...]}`); [] for anything else. */
export function readGone(payload: string | undefined): string[] {
  if (payload === undefined || payload.length > 8000 || !payload.startsWith('{"gone"')) return [];
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return [];
  }
  const gone = data && typeof data === 'object' ? (data as { gone?: unknown }).gone : undefined;
  if (!Array.isArray(gone)) return [];
  return gone.filter((h): h is string => typeof h === 'string' && TOKEN_HASH.test(h));
}

/** Listens for the mail notices of other instances until close(). */
export class PgMailNotices implements MailNotices {
  private readonly pool: pg.Pool;
  /** Releases the listening connection, once (see connect()). */
  private releaseClient: ((error?: Error) => boolean) | undefined;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  /** A connection failed or was lost since the last one listened: notices may have been missed. */
  private gap = false;
  /** Listening now (told to onListening). */
  private heard = false;

  /**
   * @param onListening told when notices are heard from now on (true) and when no longer (false): the
   *   store's recent RCPT answers (recent-recipients.ts) are kept only meanwhile.
   */
  constructor(
    url: string,
    private readonly self: string,
    private readonly events: MailNoticeEvents,
    private readonly log: StoreLog,
    private readonly onListening: (heard: boolean) => void = () => undefined,
  ) {
    this.pool = createPool({ url, max: 1, log });
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      return this.retry();
    }
    if (this.closed) return void client.release(true);
    let broken = false;
    // The one release of this connection, whoever comes first: its error, its end, or close(). Ending it
    // in close() emits 'end' here afterwards, and pg-pool throws (uncaught: serve would crash) on a
    // second release.
    const releaseOnce = (error?: Error): boolean => {
      if (broken) return false;
      broken = true;
      if (this.releaseClient === releaseOnce) this.releaseClient = undefined;
      client.release(error ?? true);
      return true;
    };
    const broke = (error?: Error) => {
      if (!releaseOnce(error)) return;
      this.hear(false);
      if (this.closed) return;
      this.log(`database connection of the mail notices lost${error ? `: ${error.message}` : ''}; listening again`, {
        level: 'warn',
        event: 'push.lost',
      });
      this.retry();
    };
    client.on('error', broke);
    client.on('end', () => broke());
    client.on('notification', (message: pg.Notification) => {
      if (message.channel === BLOCKS_CHANNEL) return this.events.onBlocks?.();
      if (message.channel !== MAIL_CHANNEL) return;
      const gone = readGone(message.payload);
      if (gone.length > 0) return this.events.onGone?.(gone);
      const hashes = readNotice(message.payload, this.self);
      if (hashes.length > 0) this.events.onMail(hashes);
    });
    try {
      await client.query(`LISTEN ${MAIL_CHANNEL}; LISTEN ${BLOCKS_CHANNEL}`);
    } catch (error) {
      return broke(error instanceof Error ? error : new Error(String(error)));
    }
    // Closed while LISTEN was on its way: close() found no connection to release; this one goes now.
    if (this.closed) releaseOnce();
    if (broken) return;
    this.releaseClient = releaseOnce;
    this.failures = 0;
    this.hear(true);
    if (this.gap) {
      this.gap = false;
      this.log('mail notices: listening again', { level: 'info', event: 'push.back' });
      this.events.onGap();
      this.events.onBlocks?.();
    }
  }

  private hear(heard: boolean): void {
    if (this.heard === heard) return;
    this.heard = heard;
    this.onListening(heard);
  }

  private retry(): void {
    if (this.closed) return;
    this.gap = true;
    this.failures++;
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(3, this.failures - 1));
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.releaseClient?.();
    this.hear(false);
    await this.pool.end().catch(() => undefined);
  }
}
