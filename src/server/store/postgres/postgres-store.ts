/**
 * The Postgres Store: any number of `serve` instances on one database (node-postgres, pooled). Nothing is
 * read at open but the schema version, so start-up does not grow with what is stored, and nothing is
 * cached: another instance may change any row at any time.
 *
 * What must hold across instances is one transaction each: a name is claimed under an advisory lock on
 * its address (insertSession), a delivery counts and appends under the row locks of its sessions, taken
 * in id order so two deliveries never deadlock (deliver), create-session hits are counted under an
 * advisory lock on the client (hitCreateLimit), and one instance sweeps at a time (purgeExpired, a
 * session-level advisory lock tried, never waited for).
 *
 * A delivery resolves only after COMMIT, so SMTP's 250 means committed. When the COMMIT's answer is lost
 * (the database restarted under it) the outcome is unknown; the store then waits for the old backend to
 * be gone and looks for the delivery's row: committed means success (the sender hears 250, not 451 and a
 * retry that would store it twice), absent means it never happened.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { StoreClosedError, UnknownSessionError, type Delivery, type NewMessage, type RateRule, type Store, type StoredMessage, type StoredMessageMeta, type StoredSession } from '../store';
import { migrate, SWEEP_LOCK } from './migrations';
import { createPool, query, transaction, withClient } from './pool';
import { INSERT_MESSAGE, META_COLUMNS, messageOf, messageValues, metaOf, SESSION_COLUMNS, sessionOf, sessionValues, type MetaRow, type SessionRow } from './rows';

export interface PostgresStoreOptions {
  url: string;
  /** Most connections this instance holds (default 10). */
  poolSize?: number;
  /** One line per notable event (migration, lost idle connection, unknown COMMIT outcome). */
  log?: (line: string) => void;
  /** How long to keep asking whether a COMMIT whose answer was lost happened (default 30 s). */
  commitCheckMs?: number;
}

/** Namespaces of the two-key advisory locks (the second key is hashtext of the name or client). */
const ADDRESS_LOCK = 7238;
const RATE_LOCK = 7239;
/** Sessions removed per statement by the sweeper: short transactions, however much has expired. */
const SWEEP_BATCH = 500;
/** Create-session hits and delivery records are kept this long (longer than any rate window). */
const KEEP_MS = 60 * 60 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Postgres-backed Store. */
export class PostgresStore implements Store {
  private pool: pg.Pool | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';
  private readonly pending = new Set<Promise<unknown>>();
  private readonly log: (line: string) => void;

  constructor(private readonly options: PostgresStoreOptions) {
    this.log = options.log ?? (() => undefined);
  }

  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('PostgresStore.open() called twice');
    const pool = createPool({ url: this.options.url, max: this.options.poolSize, log: this.log });
    try {
      const applied = await withClient(pool, migrate);
      if (applied.length > 0) this.log(`database schema migrated to version ${applied.at(-1)}`);
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
    if (wasOpen) await this.pool?.end();
  }

  /** Runs an operation while counting it in flight, so close() waits for it. */
  private run<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    if (this.state !== 'open' || !this.pool) return Promise.reject(new StoreClosedError());
    const p = work(this.pool);
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  private session(where: string, values: unknown[]): Promise<StoredSession | undefined> {
    return this.run(async (pool) => {
      const rows = await query<SessionRow>(pool, `SELECT ${SESSION_COLUMNS} FROM tempmail_sessions WHERE ${where}`, values);
      return rows[0] && sessionOf(rows[0]);
    });
  }

  putSession(session: StoredSession): Promise<void> {
    const updates = SESSION_COLUMNS.split(', ').slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ');
    return this.run(async (pool) => {
      await query(pool, `INSERT INTO tempmail_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
        ON CONFLICT (id) DO UPDATE SET ${updates}`, sessionValues(session));
    });
  }

  insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'> {
    return this.run((pool) =>
      transaction(pool, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, session.addressKey]);
        const holders = await c.query<{ expires_at: Date }>('SELECT expires_at FROM tempmail_sessions WHERE address_key = $1', [session.addressKey]);
        if (holders.rows.some((h) => h.expires_at.getTime() > now)) return { value: 'taken' as const, rollback: true };
        await c.query('DELETE FROM tempmail_sessions WHERE address_key = $1', [session.addressKey]);
        await c.query(`INSERT INTO tempmail_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, sessionValues(session));
        return { value: 'created' as const };
      }),
    );
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

  listSessions(): Promise<StoredSession[]> {
    return this.run(async (pool) =>
      (await query<SessionRow>(pool, `SELECT ${SESSION_COLUMNS} FROM tempmail_sessions ORDER BY created_at`)).map(sessionOf),
    );
  }

  countSessions(): Promise<number> {
    return this.run(async (pool) => (await query<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM tempmail_sessions'))[0]?.n ?? 0);
  }

  deleteSession(id: string): Promise<boolean> {
    return this.run(async (pool) => (await pool.query('DELETE FROM tempmail_sessions WHERE id = $1', [id])).rowCount! > 0);
  }

  purgeExpired(now: number): Promise<number> {
    return this.run((pool) =>
      withClient(pool, async (c) => {
        const { rows } = await c.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [SWEEP_LOCK]);
        if (!rows[0]?.got) return 0; // another instance is sweeping
        try {
          let removed = 0;
          for (;;) {
            const r = await c.query(
              `DELETE FROM tempmail_sessions WHERE id IN (SELECT id FROM tempmail_sessions WHERE expires_at <= $1
                 ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
              [new Date(now)],
            );
            removed += r.rowCount ?? 0;
            if ((r.rowCount ?? 0) < SWEEP_BATCH) break;
          }
          const old = new Date(now - KEEP_MS);
          await c.query('DELETE FROM tempmail_create_hits WHERE at <= $1', [old]);
          await c.query('DELETE FROM tempmail_deliveries WHERE at <= $1', [old]);
          return removed;
        } finally {
          await c.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
        }
      }),
    );
  }

  async addMessage(sessionId: string, message: NewMessage): Promise<StoredMessageMeta> {
    const { stored } = await this.deliver([sessionId], message, Infinity);
    const meta = stored.get(sessionId);
    if (!meta) throw new UnknownSessionError();
    return meta;
  }

  deliver(sessionIds: readonly string[], message: NewMessage, inboxLimit: number): Promise<Delivery> {
    const wanted = [...new Set(sessionIds)];
    const deliveryId = randomUUID();
    let backend: number | undefined;
    let commitSent = false;
    return this.run(async (pool) => {
      let outcome: Delivery | undefined;
      try {
        return await transaction(
          pool,
          async (c) => {
            // Row locks in id order: the inbox counts below cannot change until COMMIT.
            const locked = await c.query<{ id: string; pid: number }>(
              'SELECT id, pg_backend_pid() AS pid FROM tempmail_sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
              [wanted],
            );
            const present = locked.rows.map((r) => r.id);
            backend = locked.rows[0]?.pid;
            const result: Delivery = { stored: new Map(), full: [], gone: wanted.filter((id) => !present.includes(id)) };
            if (present.length === 0) return { value: result, rollback: true };
            if (Number.isFinite(inboxLimit)) {
              const counts = await c.query<{ session_id: string; n: number }>(
                'SELECT session_id, count(*)::int AS n FROM tempmail_messages WHERE session_id = ANY($1::text[]) GROUP BY session_id',
                [present],
              );
              result.full = counts.rows.filter((r) => r.n >= inboxLimit).map((r) => r.session_id).sort();
              if (result.full.length > 0) return { value: result, rollback: true };
            }
            const inserted = await c.query<MetaRow & { session_id: string }>(INSERT_MESSAGE, [present, ...messageValues(message)]);
            for (const row of inserted.rows) result.stored.set(row.session_id, metaOf(row));
            await c.query('INSERT INTO tempmail_deliveries (id, at) VALUES ($1, now())', [deliveryId]);
            outcome = result;
            return { value: result };
          },
          async (c) => {
            commitSent = true;
            await c.query('COMMIT');
          },
        );
      } catch (error) {
        if (!commitSent || !outcome) throw error;
        if (await this.committed(pool, deliveryId, backend)) return outcome;
        throw error;
      }
    });
  }

  /** Whether a delivery whose COMMIT answer was lost is in the database, once its backend has gone. */
  private async committed(pool: pg.Pool, deliveryId: string, backend: number | undefined): Promise<boolean> {
    const deadline = Date.now() + (this.options.commitCheckMs ?? 30_000);
    while (Date.now() < deadline) {
      try {
        const [row] = await query<{ busy: boolean; done: boolean }>(
          pool,
          `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2) AS busy,
                  EXISTS (SELECT 1 FROM tempmail_deliveries WHERE id = $1) AS done`,
          [deliveryId, backend ?? 0],
        );
        if (row?.done) return true;
        if (row && !row.busy) return false;
      } catch {
        // The database is still away: ask again.
      }
      await sleep(250);
    }
    this.log(`delivery ${deliveryId}: the database did not say whether its COMMIT happened; answered as failed`);
    return false;
  }

  listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    return this.run(async (pool) =>
      (await query<MetaRow>(pool, `SELECT ${META_COLUMNS} FROM tempmail_messages WHERE session_id = $1 ORDER BY id`, [sessionId])).map(metaOf),
    );
  }

  getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    return this.run(async (pool) => {
      if (!Number.isSafeInteger(id)) return undefined;
      const rows = await query<MetaRow & { body: StoredMessage }>(
        pool,
        `SELECT ${META_COLUMNS}, body FROM tempmail_messages WHERE session_id = $1 AND id = $2`,
        [sessionId, id],
      );
      return rows[0] && messageOf(rows[0]);
    });
  }

  countMessages(sessionId: string): Promise<number> {
    return this.run(async (pool) =>
      (await query<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM tempmail_messages WHERE session_id = $1', [sessionId]))[0]?.n ?? 0,
    );
  }

  deleteMessage(sessionId: string, id: number): Promise<boolean> {
    return this.run(async (pool) => {
      if (!Number.isSafeInteger(id)) return false;
      return (await pool.query('DELETE FROM tempmail_messages WHERE session_id = $1 AND id = $2', [sessionId, id])).rowCount! > 0;
    });
  }

  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    return this.run(async (pool) => {
      if (!Number.isSafeInteger(id)) return undefined;
      const rows = await query<{ raw: Buffer }>(pool, 'SELECT raw FROM tempmail_messages WHERE session_id = $1 AND id = $2', [sessionId, id]);
      return rows[0]?.raw;
    });
  }

  attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    return this.run(async (pool) => {
      if (!Number.isSafeInteger(id) || !Number.isSafeInteger(attachmentId) || attachmentId < 1 || attachmentId > 2 ** 31 - 1) return undefined;
      const rows = await query<{ bytes: Buffer | null }>(
        pool,
        'SELECT attachments[$3::int] AS bytes FROM tempmail_messages WHERE session_id = $1 AND id = $2',
        [sessionId, id, attachmentId],
      );
      return rows[0]?.bytes ?? undefined;
    });
  }

  hitCreateLimit(key: string, now: number, rule: RateRule): Promise<number> {
    return this.run(async (pool) => {
      if (rule.limit <= 0) return 0;
      return transaction(pool, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RATE_LOCK, key]);
        const { rows } = await c.query<{ n: number; oldest: Date | null }>(
          'SELECT count(*)::int AS n, min(at) AS oldest FROM tempmail_create_hits WHERE client_key = $1 AND at > $2',
          [key, new Date(now - rule.windowMs)],
        );
        const { n = 0, oldest = null } = rows[0] ?? {};
        if (n >= rule.limit) {
          const wait = Math.ceil(((oldest?.getTime() ?? now) + rule.windowMs - now) / 1000);
          return { value: Math.max(1, wait), rollback: true };
        }
        await c.query('INSERT INTO tempmail_create_hits (client_key, at) VALUES ($1, $2)', [key, new Date(now)]);
        return { value: 0 };
      });
    });
  }

  probe(): Promise<boolean> {
    return this.run(async (pool) => {
      await pool.query('SELECT 1');
      return true;
    });
  }
}
