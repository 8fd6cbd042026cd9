/**
 * One batch of deliveries into the Postgres store (delivery-queue.ts groups them): one transaction that
 * takes the row locks of every session the batch names, in id order (two batches never deadlock, and
 * the inbox counts cannot change until COMMIT), decides each delivery in arrival order against the
 * counts as the batch leaves them (the inbox limit stays exact, also between deliveries of one batch),
 * then writes every copy, the new last ids and the batch's record in one statement, and COMMITs once.
 *
 * It resolves only after COMMIT, so SMTP's 250 means committed. When the COMMIT's answer is lost (the
 * database restarted under it) the outcome is unknown; then we wait for the old backend to be gone and
 * look for the batch's row: committed means success (the senders hear 250, not 451 and a retry that
 * would store them twice), absent means it never happened.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Delivery, NewMessage, StoredMessageMeta } from '../store';
import { prepared, query, transaction } from './pool';
import { insertBatch, messageValues, type BatchRow } from './rows';

export interface DeliverOptions {
  /** How long to keep asking whether a COMMIT whose answer was lost happened (default 30 s). */
  commitCheckMs?: number;
  log(line: string): void;
}

/** One delivery of a batch: Store.deliver's arguments. */
export interface QueuedDelivery {
  sessionIds: readonly string[];
  message: NewMessage;
  inboxLimit: number;
}

/** What a batch did, for the log and the bench: the lock hold is what queues deliveries to one address. */
export interface BatchReport {
  deliveries: number;
  /** Copies stored (one per session a delivery reached). */
  rows: number;
  /** From the row locks taken to the end of COMMIT (or ROLLBACK), ms. */
  lockMs: number;
}

/** How a batch failed: before its COMMIT was sent (nothing happened) or after (it did not happen either). */
export interface BatchState {
  commitSent: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The listing record of a copy, as the row written for it reads back. */
function metaOf(message: NewMessage, id: number): StoredMessageMeta {
  return {
    id,
    senderName: message.senderName,
    senderEmail: message.senderEmail,
    subject: message.subject,
    receivedAt: message.receivedAt,
    size: message.raw.length,
    attachments: message.attachments.map((a, i) => ({ id: i + 1, filename: a.filename, contentType: a.contentType, size: a.bytes.length })),
  };
}

/** The sessions' place in the batch: the last id handed out and the messages held, as the batch goes. */
type Inboxes = Map<string, { last: number; held: number }>;

/** Decides one delivery against `inboxes` and takes its ids (in `rows`) when it is stored. */
function decide(d: QueuedDelivery, k: number, inboxes: Inboxes, rows: BatchRow[]): Delivery {
  const wanted = [...new Set(d.sessionIds)];
  const present = wanted.filter((id) => inboxes.has(id)).sort();
  const result: Delivery = { stored: new Map(), full: [], gone: wanted.filter((id) => !inboxes.has(id)) };
  result.full = present.filter((id) => inboxes.get(id)!.held >= d.inboxLimit);
  if (result.full.length > 0) return result;
  for (const id of present) {
    const inbox = inboxes.get(id)!;
    inbox.last += 1;
    inbox.held += 1;
    rows.push({ sessionId: id, id: inbox.last, k });
    result.stored.set(id, metaOf(d.message, inbox.last));
  }
  return result;
}

/** Stores each delivery of `batch` (see above); one outcome per delivery, in order. */
export async function deliverBatch(
  pool: pg.Pool,
  batch: readonly QueuedDelivery[],
  options: DeliverOptions,
  state: BatchState = { commitSent: false },
  onReport?: (report: BatchReport) => void,
): Promise<Delivery[]> {
  const sessions = [...new Set(batch.flatMap((d) => d.sessionIds))].sort();
  const batchId = randomUUID();
  let backend: number | undefined;
  let outcomes: Delivery[] | undefined;
  let lockedAt: number | undefined;
  let rowCount = 0;
  const report = () => {
    if (lockedAt !== undefined) onReport?.({ deliveries: batch.length, rows: rowCount, lockMs: performance.now() - lockedAt });
  };
  try {
    const result = await transaction(
      pool,
      async (c) => {
        // Row locks in id order: the counts read here cannot change until COMMIT.
        const locked = await c.query<{ id: string; last: number; held: number; pid: number }>(
          prepared(
            `SELECT id, last_message_id AS last, message_count AS held, pg_backend_pid() AS pid
               FROM tempmail_sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
            [sessions],
          ),
        );
        lockedAt = performance.now();
        backend = locked.rows[0]?.pid;
        const inboxes: Inboxes = new Map(locked.rows.map((r) => [r.id, { last: r.last, held: r.held }]));
        const rows: BatchRow[] = [];
        const decided = batch.map((d, k) => decide(d, k, inboxes, rows));
        if (rows.length === 0) return { value: decided, rollback: true };
        // The messages stored (a delivery refused as full sends no bytes), each once: its place in VALUES.
        const place = new Map<number, number>();
        for (const r of rows) if (!place.has(r.k)) place.set(r.k, place.size);
        const bumped = new Set(rows.map((r) => r.sessionId));
        const lastIds = [...inboxes].filter(([id]) => bumped.has(id));
        await c.query(prepared(insertBatch(place.size), [
          lastIds.map(([id]) => id),
          lastIds.map(([, inbox]) => inbox.last),
          batchId,
          rows.map((r) => r.sessionId),
          rows.map((r) => r.id),
          rows.map((r) => place.get(r.k)!),
          ...[...place.keys()].flatMap((k) => messageValues(batch[k]!.message)),
        ]));
        rowCount = rows.length;
        outcomes = decided;
        return { value: decided };
      },
      async (c) => {
        state.commitSent = true;
        await c.query('COMMIT');
      },
    );
    report();
    return result;
  } catch (error) {
    report();
    if (!state.commitSent || !outcomes) throw error;
    if (await committed(pool, batchId, backend, options)) return outcomes;
    throw error;
  }
}

/** Whether a batch whose COMMIT answer was lost is in the database, once its backend has gone. */
async function committed(pool: pg.Pool, batchId: string, backend: number | undefined, options: DeliverOptions): Promise<boolean> {
  const deadline = Date.now() + (options.commitCheckMs ?? 30_000);
  while (Date.now() < deadline) {
    try {
      const [row] = await query<{ busy: boolean; done: boolean }>(
        pool,
        `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2) AS busy,
                EXISTS (SELECT 1 FROM tempmail_deliveries WHERE id = $1) AS done`,
        [batchId, backend ?? 0],
      );
      if (row?.done) return true;
      if (row && !row.busy) return false;
    } catch {
      // The database is still away: ask again.
    }
    await sleep(250);
  }
  options.log(`delivery batch ${batchId}: the database did not say whether its COMMIT happened; answered as failed`);
  return false;
}
