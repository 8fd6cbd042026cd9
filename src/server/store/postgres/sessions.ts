/**
 * Sessions in the Postgres store: written, claimed by name, read, removed and swept when expired. Each
 * is one statement on any pooled connection, or one short transaction. PostgresStore calls these while
 * it counts them in flight.
 *
 * Every removal takes the session's row first (a DELETE of the row; the sweep's FOR UPDATE SKIP
 * LOCKED), as a delivery and a message's delete do: its messages go by cascade after it, and the
 * trigger that counts them (migration 6) then finds no row to update. Every removal tells every instance
 * which sessions went, in the same statement (a `gone` notice, sent by Postgres at COMMIT): their event
 * streams end, and RCPT's recent answers forget them (recent-recipients.ts).
 */
import type pg from 'pg';
import { RATE_HITS_KEEP_MS, type StoredSession } from '../store';
import { goneSql } from './mail-notices';
import { SWEEP_LOCK } from './schema/migrations';
import { prepared, query, transaction, withClient } from './connection/pool';
import { SESSION_COLUMNS, sessionOf, sessionValues, type SessionRow } from './rows';

/** Namespace of the two-key advisory lock on a name (the second key is hashtext of the address). */
const ADDRESS_LOCK = 7238;
/** Sessions removed per statement by the sweeper: short transactions, however much has expired. */
const SWEEP_BATCH = 500;
/** Delivery records are kept this long (rate-limit hits: RATE_HITS_KEEP_MS). */
const KEEP_MS = 60 * 60 * 1000;

/** The first session `where` finds (a condition on tempmail_sessions, maybe with ORDER BY). */
export async function sessionWhere(
  pool: pg.Pool,
  where: string,
  values: unknown[],
): Promise<StoredSession | undefined> {
  const rows = await query<SessionRow>(pool, `SELECT ${SESSION_COLUMNS} FROM tempmail_sessions WHERE ${where}`, values);
  return rows[0] && sessionOf(rows[0]);
}

export async function putSession(pool: pg.Pool, session: StoredSession): Promise<void> {
  const updates = SESSION_COLUMNS.split(', ')
    .slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  await query(
    pool,
    `INSERT INTO tempmail_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
    ON CONFLICT (id) DO UPDATE SET ${updates}`,
    sessionValues(session),
  );
}

/** Claims the session's address under an advisory lock on it: an expired holder gives it up in the same step. */
export function insertSession(pool: pg.Pool, session: StoredSession, now: number): Promise<'created' | 'taken'> {
  return transaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, session.addressKey]);
    const holders = await c.query<{ expires_at: Date }>(
      'SELECT expires_at FROM tempmail_sessions WHERE address_key = $1',
      [session.addressKey],
    );
    if (holders.rows.some((h) => h.expires_at.getTime() > now)) return { value: 'taken' as const, rollback: true };
    // The expired holder's notice tells every instance it is gone (their RCPT answers kept, their watchers).
    await c.query(
      prepared(
        `WITH gone AS (DELETE FROM tempmail_sessions WHERE address_key = $1 RETURNING token_hash) ${goneSql('SELECT token_hash FROM gone')}`,
        [session.addressKey],
      ),
    );
    await c.query(
      `INSERT INTO tempmail_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      sessionValues(session),
    );
    return { value: 'created' as const };
  });
}

export async function listSessions(pool: pg.Pool): Promise<StoredSession[]> {
  return (await query<SessionRow>(pool, `SELECT ${SESSION_COLUMNS} FROM tempmail_sessions ORDER BY created_at`)).map(
    sessionOf,
  );
}

export async function countSessions(pool: pg.Pool): Promise<number> {
  return (await query<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM tempmail_sessions'))[0]?.n ?? 0;
}

/**
 * Deletes session `id` and, in the same statement, tells every instance on the database (mail-notices.ts:
 * Postgres hands the notice out at COMMIT), so the event streams of the session end wherever they are.
 */
export async function deleteSession(pool: pg.Pool, id: string): Promise<boolean> {
  const sql = `WITH gone AS (DELETE FROM tempmail_sessions WHERE id = $1 RETURNING token_hash) ${goneSql('SELECT token_hash FROM gone')}`;
  return (await pool.query(prepared(sql, [id]))).rowCount! > 0;
}

/**
 * Removes the sessions expired at `now` (a batch at a time; a session a delivery holds is skipped, to
 * the next sweep), and the rate-limit hits and delivery records past keeping. One instance sweeps at a
 * time: a session-level advisory lock tried, never waited for (0 when another holds it).
 */
export function purgeExpired(pool: pg.Pool, now: number): Promise<number> {
  return withClient(pool, async (c) => {
    const { rows } = await c.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [SWEEP_LOCK]);
    if (!rows[0]?.got) return 0; // another instance is sweeping
    try {
      let removed = 0;
      for (;;) {
        // Each batch tells every instance which sessions went (gone notices, at its COMMIT).
        const r = await c.query<{ n: number }>(
          `WITH gone AS (DELETE FROM tempmail_sessions WHERE id IN (SELECT id FROM tempmail_sessions WHERE expires_at <= $1
             ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED) RETURNING token_hash),
           told AS (${goneSql('SELECT token_hash FROM gone')})
           SELECT (SELECT count(*) FROM gone)::int AS n, (SELECT count(*) FROM told)::int AS notices`,
          [new Date(now)],
        );
        const n = r.rows[0]?.n ?? 0;
        removed += n;
        if (n < SWEEP_BATCH) break;
      }
      await c.query('DELETE FROM tempmail_create_hits WHERE at <= $1', [new Date(now - RATE_HITS_KEEP_MS)]);
      await c.query('DELETE FROM tempmail_deliveries WHERE at <= $1', [new Date(now - KEEP_MS)]);
      return removed;
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
    }
  });
}
