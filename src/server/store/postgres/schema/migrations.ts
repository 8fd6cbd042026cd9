/**
 * The Postgres store's schema migrations, applied at start. `tempmail_migrations` records each
 * one applied; a session-level advisory lock makes instances that start together take turns, so exactly
 * one of them migrates and the others find the work done. A database migrated by a newer tempmail-tui
 * (a version this code does not know) is refused rather than used with a schema it does not understand.
 * The versions themselves are in schema.ts.
 */
import type { PoolClient } from 'pg';
import { MIGRATIONS } from './schema';

/** Advisory lock keys (one 64-bit key space, apart from the two-key locks of sessions.ts and tempmail_rate_hit). */
export const MIGRATION_LOCK = '7238456001';
export const SWEEP_LOCK = '7238456002';
// 7238456003: the storage cap's lock, taken inside tempmail_deliver_batch (migration 7); 7238456004: the
// recount of the stored totals (usage.ts).

/** The database holds a schema newer than this code knows. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(readonly found: number) {
    super(
      `the database schema is at version ${found}, newer than this tempmail-tui knows (${MIGRATIONS.length}); ` +
        'upgrade tempmail-tui on this machine',
    );
  }
}

/** Brings the schema up to date on `client` (taken from the pool for this); returns the versions applied. */
export async function migrate(client: PoolClient): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`
      CREATE TABLE IF NOT EXISTS tempmail_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM tempmail_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length) throw new SchemaTooNewError(current);
    const applied: number[] = [];
    for (const m of MIGRATIONS.filter((x) => x.version > current)) {
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO tempmail_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
  }
}
