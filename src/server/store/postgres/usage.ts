/**
 * What the Postgres store holds in all (Store.usage, for the storage cap and the metrics): the totals
 * the message triggers keep in tempmail_usage (migration 7: the messages and their sizes as received,
 * in the transaction that stores or deletes them), read as the sum of its slots: one cheap query.
 *
 * The recount (at start and at each periodic measure; one instance at a time, the others read the kept
 * totals meanwhile) counts the messages themselves and corrects the kept totals by what they differ.
 * Both are read in one statement, so one snapshot: a delivery or delete
 * that commits meanwhile changes the messages and the totals together, on both sides or on neither, and
 * the difference is drift alone (a TRUNCATE, triggers turned off by hand, a restore). It is added to
 * the totals as a difference, never written over them, so what commits after the snapshot is kept.
 */
import type pg from 'pg';
import type { StorageUsage } from '../store';
import { prepared, transaction } from './connection/pool';
import type { StoreLog } from '../store-log';

/** The kept totals. */
export async function storageUsage(db: pg.Pool | pg.PoolClient): Promise<StorageUsage> {
  const { rows } = await db.query<{ n: string; bytes: string }>(
    prepared(
      'SELECT coalesce(sum(messages), 0)::bigint AS n, coalesce(sum(bytes), 0)::bigint AS bytes FROM tempmail_usage',
      [],
    ),
  );
  return { messages: Number(rows[0]?.n ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
}

/** Taken (tried, never waited for) by the instance recounting: one recount at a time on the database. */
const RECOUNT_LOCK = '7238456004';

/**
 * The messages counted, the kept totals corrected to them when they differ (one line in the log then).
 * While another instance recounts (a scan of the message table), the kept totals instead.
 */
export function recountUsage(pool: pg.Pool, log: StoreLog): Promise<StorageUsage> {
  return transaction(pool, async (c) => {
    const { rows: lock } = await c.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS got', [
      RECOUNT_LOCK,
    ]);
    if (!lock[0]?.got) return { value: await storageUsage(c) };
    const { rows } = await c.query<{ n: string; bytes: string; kept_n: string; kept_bytes: string }>(
      `SELECT c.n, c.bytes, k.n AS kept_n, k.bytes AS kept_bytes
         FROM (SELECT count(*)::bigint AS n, coalesce(sum(size), 0)::bigint AS bytes FROM tempmail_messages) c,
              (SELECT coalesce(sum(messages), 0)::bigint AS n, coalesce(sum(bytes), 0)::bigint AS bytes FROM tempmail_usage) k`,
    );
    const row = rows[0];
    const counted = { messages: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
    const kept = { messages: Number(row?.kept_n ?? 0), bytes: Number(row?.kept_bytes ?? 0) };
    const off = { messages: counted.messages - kept.messages, bytes: counted.bytes - kept.bytes };
    if (off.messages === 0 && off.bytes === 0) return { value: counted };
    await c.query('UPDATE tempmail_usage SET messages = messages + $1, bytes = bytes + $2 WHERE slot = 0', [
      off.messages,
      off.bytes,
    ]);
    log(
      `the stored-mail totals were off by ${off.messages} messages and ${off.bytes} bytes (${kept.messages} and ${kept.bytes} kept, ${counted.messages} and ${counted.bytes} counted): corrected`,
      {
        level: 'warn',
        event: 'storage.totals_corrected',
      },
    );
    return { value: counted };
  });
}
