/**
 * One batch of deliveries into the Postgres store (delivery-queue.ts groups them), in one statement and
 * so one transaction and one COMMIT (batch-sql.ts deliverBatchStatement): tempmail_deliver_batch (migration
 * 6) takes the row locks of every session the batch names, in id order (two batches never deadlock, and
 * the inbox counts cannot change until COMMIT), and decides each delivery in arrival order against the
 * counts as the batch leaves them (the inbox limit stays exact, also between deliveries of one batch);
 * the same statement writes every copy it stored, the batch's record and the mail notices of the
 * sessions that got mail (sent by Postgres at COMMIT, to the other instances). One round trip a batch: the
 * locks are held only while the database works and flushes the COMMIT, never across the network.
 *
 * It resolves only after COMMIT, so SMTP's 250 means committed. When the answer is lost (the database
 * restarted under it) the outcome is unknown; then we wait for the old backend to be gone and look for
 * the batch's record: there means committed (the senders hear 250, not 451 and a retry that would store
 * them twice), absent means it never happened. An error the database answered with is known: nothing
 * of the batch happened.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Delivery, NewMessage, StorageCaps, StoredMessageMeta } from '../../store';
import { deliverBatchStatement } from './batch-sql';
import { prepared, query, withClient } from '../connection/pool';
import { idOf } from '../schema/message-ids';
import { messageValues } from '../rows';
import type { StoreLog } from '../../store-log';

export interface DeliverOptions {
  /** How long to keep asking whether a COMMIT whose answer was lost happened (default 30 s). */
  commitCheckMs?: number;
  /** This instance's name in its mail notices (mail-notices.ts): sent at COMMIT, to the other instances. */
  instance: string;
  log: StoreLog;
}

/** One delivery of a batch: Store.deliver's arguments. */
export interface QueuedDelivery {
  sessionIds: readonly string[];
  message: NewMessage;
  inboxLimit: number;
  /** The storage cap to keep (0 in a field: none); none at all when undefined. */
  caps?: StorageCaps;
}

/** What a batch did, for the log and the bench: the lock hold is what queues deliveries to one address. */
export interface BatchReport {
  deliveries: number;
  /** Copies stored (one per session a delivery reached). */
  rows: number;
  /**
   * From the row locks taken (the database's clock) to the statement's answer here (this machine's
   * clock): the work under the locks, the COMMIT's flush, and the answer's way back, ms. Only between
   * processes on one machine (the bench, the tests) are the two clocks one.
   */
  lockMs: number;
}

/** How a batch failed: before its statement was sent (nothing happened), or after with no answer. */
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
    attachments: message.attachments.map((a, i) => ({
      id: i + 1,
      filename: a.filename,
      contentType: a.contentType,
      size: a.bytes.length,
    })),
    ...(message.clientIp !== undefined ? { clientIp: message.clientIp } : {}),
    ...(message.envelopeFrom !== undefined ? { envelopeFrom: message.envelopeFrom } : {}),
  };
}

/**
 * Whether a failed statement's outcome is unknown: no answer came (the connection broke), or the
 * database was ending the connection as it answered (class 08, connection; 57, shutdown or
 * termination), which can cross a COMMIT already made. Any other answer is an error the statement met.
 */
function unanswered(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return true;
  return /^(08|57)/.test(error.code ?? '');
}

/**
 * A limit as the database compares it with a count (an integer): past what an integer holds there is
 * no limit (NULL), and a fractional one means the next whole count.
 */
function limitOf(inboxLimit: number): number | null {
  return inboxLimit < 2 ** 31 ? Math.max(0, Math.ceil(inboxLimit)) : null;
}

/** A storage cap as the database takes it: NULL for none (0 or absent). */
function capOf(cap: number | undefined): number | null {
  return cap !== undefined && cap > 0 ? cap : null;
}

/** Stores each delivery of `batch` (see above); one outcome per delivery, in order. */
export async function deliverBatch(
  pool: pg.Pool,
  batch: readonly QueuedDelivery[],
  options: DeliverOptions,
  state: BatchState = { commitSent: false },
  onReport?: (report: BatchReport) => void,
): Promise<Delivery[]> {
  const copies = batch.flatMap((d, k) => [...new Set(d.sessionIds)].sort().map((id) => ({ id, k })));
  const batchId = randomUUID();
  let backend: number | undefined;
  try {
    const rows = await withClient(pool, async (c) => {
      backend = (c as unknown as { processID?: number }).processID ?? undefined;
      const values = [
        copies.map((x) => x.id),
        copies.map((x) => x.k),
        batch.map((d) => limitOf(d.inboxLimit)),
        batchId,
        options.instance,
        batch.map((d) => capOf(d.caps?.maxMessages)),
        batch.map((d) => capOf(d.caps?.maxBytes)),
        batch.map((d) => d.message.raw.length),
        ...batch.flatMap((d) => messageValues(d.message)),
      ];
      state.commitSent = true;
      const answer = await c.query<Decided & { locked_at: number }>(
        prepared(deliverBatchStatement(batch.length), values),
      );
      const lockedAt = answer.rows[0]?.locked_at;
      if (lockedAt !== undefined) {
        const lockMs = performance.timeOrigin + performance.now() - lockedAt * 1000;
        onReport?.({
          deliveries: batch.length,
          rows: answer.rows.filter((r) => r.outcome === 'stored').length,
          lockMs,
        });
      }
      return answer.rows;
    });
    return outcomes(batch, rows);
  } catch (error) {
    if (!state.commitSent) throw error;
    if (!unanswered(error)) {
      // The database said why: the statement, and so the batch, did not happen.
      state.commitSent = false;
      throw error;
    }
    const decided = await committed(pool, batchId, backend, options);
    if (!decided) throw error;
    // Committed: the outcomes are the ones the batch's record kept.
    return outcomes(batch, decided);
  }
}

/** A copy's outcome, as tempmail_deliver_batch decided it. */
interface Decided {
  delivery: number;
  sid: string;
  outcome: string;
  /** bigint (migration 8): a string from pg, a number from the record's json. */
  message_id: number | string | null;
}

/** Each delivery's outcome from the statement's rows (one per copy). */
function outcomes(batch: readonly QueuedDelivery[], rows: readonly Decided[]): Delivery[] {
  const out: Delivery[] = batch.map(() => ({ stored: new Map(), full: [], gone: [] }));
  for (const r of rows) {
    const d = out[r.delivery]!;
    if (r.outcome === 'stored') d.stored.set(r.sid, metaOf(batch[r.delivery]!.message, idOf(r.message_id!)));
    else if (r.outcome === 'full') d.full.push(r.sid);
    else if (r.outcome === 'gone') d.gone.push(r.sid);
    else if (r.outcome === 'capped') d.capped = true;
  }
  for (const d of out) d.full.sort();
  return out;
}

/**
 * What a batch whose answer was lost decided, once its backend has gone: its record's copy of the
 * decision when it committed, undefined when it did not (or the database would not say in time).
 */
async function committed(
  pool: pg.Pool,
  batchId: string,
  backend: number | undefined,
  options: DeliverOptions,
): Promise<Decided[] | undefined> {
  const deadline = Date.now() + (options.commitCheckMs ?? 30_000);
  while (Date.now() < deadline) {
    try {
      const [row] = await query<{ busy: boolean; decided: Decided[] | null }>(
        pool,
        `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2) AS busy,
                (SELECT decided FROM tempmail_deliveries WHERE id = $1) AS decided`,
        [batchId, backend ?? 0],
      );
      if (row?.decided) return row.decided;
      if (row && !row.busy) return undefined;
    } catch {
      // The database is still away: ask again.
    }
    await sleep(250);
  }
  options.log(`delivery batch ${batchId}: the database did not say whether its COMMIT happened; answered as failed`, {
    level: 'error',
    event: 'storage.commit_unknown',
  });
  return undefined;
}
