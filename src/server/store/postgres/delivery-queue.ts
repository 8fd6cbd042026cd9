/**
 * Group commit for the Postgres store: deliveries that arrive together share one transaction and one
 * COMMIT (deliver.ts). Every delivery asked for while a batch is in the database waits for it and joins
 * the next one, so a busy address pays one lock hold, one statement and one WAL flush for many messages
 * instead of one each; at low load a batch holds one delivery and starts at once (next turn of the event
 * loop): grouping never adds a wait of its own.
 *
 * Each delivery still resolves only after its batch's COMMIT, with its own outcome: arrival order is id
 * order within each inbox, and a delivery refused as full (or whose sessions are gone) costs the others
 * nothing. A batch the database refuses for its data (a value it cannot take) is tried again one
 * delivery at a time, so one bad message never fails the others; a batch lost to the connection is not
 * (each alone would only wait for the same database again), and one whose COMMIT was sent never is.
 */
import type { Delivery, NewMessage } from '../store';
import type { BatchState, QueuedDelivery } from './deliver';

interface Waiting extends QueuedDelivery {
  resolve: (outcome: Delivery) => void;
  reject: (error: unknown) => void;
}

export interface QueueLimits {
  /** Deliveries in one batch at most (default 200). */
  deliveries?: number;
  /** Bytes of raw message in one batch at most (default 16 MiB; a bigger message goes alone). */
  bytes?: number;
}

/** Runs one batch: one outcome per delivery, in order (deliverBatch with its pool and options). */
export type RunBatch = (batch: readonly QueuedDelivery[], state: BatchState) => Promise<Delivery[]>;

/** SQLSTATE classes of a statement refused for what it was given: data (22), integrity (23), limits (54). */
const REFUSED_FOR_DATA = /^(22|23|54)/;

function refusedForData(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 && REFUSED_FOR_DATA.test(code);
}

/** The batching deliverer of one store. */
export class DeliveryQueue {
  private queue: Waiting[] = [];
  private running = false;
  private scheduled = false;
  private readonly maxDeliveries: number;
  private readonly maxBytes: number;

  constructor(
    private readonly runBatch: RunBatch,
    limits: QueueLimits = {},
  ) {
    this.maxDeliveries = limits.deliveries ?? 200;
    this.maxBytes = limits.bytes ?? 16 * 1024 * 1024;
  }

  /** Queues one delivery; resolves after the COMMIT of the batch it went in. */
  deliver(sessionIds: readonly string[], message: NewMessage, inboxLimit: number): Promise<Delivery> {
    return new Promise<Delivery>((resolve, reject) => {
      this.queue.push({ sessionIds, message, inboxLimit, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a batch on the next turn of the loop (deliveries of the same burst join it), if none runs. */
  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.running || this.queue.length === 0) return;
      this.running = true;
      void this.runOne(this.take()).finally(() => {
        this.running = false;
        this.schedule();
      });
    });
  }

  /** The oldest deliveries within the limits (always at least one). */
  private take(): Waiting[] {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && n < this.maxDeliveries) {
      bytes += this.queue[n]!.message.raw.length;
      if (n > 0 && bytes > this.maxBytes) break;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async runOne(batch: Waiting[]): Promise<void> {
    const state: BatchState = { commitSent: false };
    try {
      const outcomes = await this.runBatch(batch, state);
      batch.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (error) {
      if (batch.length === 1 || state.commitSent || !refusedForData(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      for (const w of batch) await this.runOne([w]);
    }
  }
}
