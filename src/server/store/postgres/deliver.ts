/**
 * One delivery into the Postgres store: one transaction that takes the row locks of its sessions in id
 * order (two deliveries never deadlock, and the inbox counts cannot change until COMMIT), counts, appends
 * one row per present session and records the delivery's id.
 *
 * It resolves only after COMMIT, so SMTP's 250 means committed. When the COMMIT's answer is lost (the
 * database restarted under it) the outcome is unknown; then we wait for the old backend to be gone and
 * look for the delivery's row: committed means success (the sender hears 250, not 451 and a retry that
 * would store it twice), absent means it never happened.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Delivery, NewMessage } from '../store';
import { MAIL_CHANNEL, noticePayloads } from './mail-notices';
import { query, transaction } from './pool';
import { INSERT_MESSAGE, messageValues, metaOf, type MetaRow } from './rows';

export interface DeliverOptions {
  /** How long to keep asking whether a COMMIT whose answer was lost happened (default 30 s). */
  commitCheckMs?: number;
  /** This instance's name in its mail notices (mail-notices.ts): sent at COMMIT, to the other instances. */
  instance: string;
  log(line: string): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stores `message` in each of `sessionIds` that exists, all or nothing (see above). */
export async function deliverInTransaction(
  pool: pg.Pool,
  sessionIds: readonly string[],
  message: NewMessage,
  inboxLimit: number,
  options: DeliverOptions,
): Promise<Delivery> {
  const wanted = [...new Set(sessionIds)];
  const deliveryId = randomUUID();
  let backend: number | undefined;
  let commitSent = false;
  let outcome: Delivery | undefined;
  try {
    return await transaction(
      pool,
      async (c) => {
        // Row locks in id order: the inbox counts below cannot change until COMMIT.
        const locked = await c.query<{ id: string; token_hash: string; pid: number }>(
          'SELECT id, token_hash, pg_backend_pid() AS pid FROM tempmail_sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
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
        // The record of the delivery and its notices (handed out by Postgres at COMMIT only), in one trip.
        const hashes = locked.rows.filter((r) => result.stored.has(r.id)).map((r) => r.token_hash);
        await c.query(
          `WITH recorded AS (INSERT INTO tempmail_deliveries (id, at) VALUES ($1, now()))
             SELECT pg_notify($2, payload) FROM unnest($3::text[]) AS payload`,
          [deliveryId, MAIL_CHANNEL, noticePayloads(options.instance, hashes)],
        );
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
    if (await committed(pool, deliveryId, backend, options)) return outcome;
    throw error;
  }
}

/** Whether a delivery whose COMMIT answer was lost is in the database, once its backend has gone. */
async function committed(pool: pg.Pool, deliveryId: string, backend: number | undefined, options: DeliverOptions): Promise<boolean> {
  const deadline = Date.now() + (options.commitCheckMs ?? 30_000);
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
  options.log(`delivery ${deliveryId}: the database did not say whether its COMMIT happened; answered as failed`);
  return false;
}
