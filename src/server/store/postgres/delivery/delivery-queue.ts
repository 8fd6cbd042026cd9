/**
 * Group commit for the Postgres store: deliveries that arrive together share one transaction and one
 * COMMIT (deliver.ts). Every delivery asked for while a batch to any of its sessions is in the database
 * waits for it and joins the next one, so a busy address pays one lock hold, one statement and one WAL
 * flush for many messages instead of one each; at low load a batch holds one delivery and starts at once
 * (next turn of the event loop) when no other delivery is on its way (below). Deliveries to other
 * sessions wait for the batch in the database too, while it is quick (SLOW_MS): a batch costs the
 * database about the same work whether it holds one delivery or five, so mail to many addresses goes in
 * fewer, fuller batches (the figures: docs/performance.md, issue 28's third round). A batch slower than
 * that (waiting for a lock
 * another instance holds, a big message, a slow disk) lets another start beside it on other sessions, a
 * few at most, and the database flushes their COMMITs together: one slow inbox never holds up the others
 * for longer than SLOW_MS (and GATHER_MS).
 *
 * A batch that could start also waits while a delivery is on its way (announce(): an SMTP client of this
 * instance is sending its message's body), GATHER_MS at most after its oldest delivery was queued: under
 * load the deliveries of several connections go together (docs/performance.md, the fourth round), and
 * with no other message coming nothing waits. A body that ends (arrived) lets
 * the waiting batch go at once; plain mail reaches deliver() in that same turn of the loop, before the
 * batch starts, so it goes in it. Mail that must be parsed first (or a body that is refused, or a client
 * that stalls mid-body) costs the others GATHER_MS at most.
 *
 * Each delivery still resolves only after its batch's COMMIT, with its own outcome: arrival order is id
 * order within each inbox, and a delivery refused as full (or whose sessions are gone) costs the others
 * nothing. A batch the database refuses for its data (a value it cannot take) is tried again one
 * delivery at a time, so one bad message never fails the others; a batch lost to the connection is not
 * (each alone would only wait for the same database again), and one whose COMMIT was sent never is.
 */
import type { Delivery, NewMessage, StorageCaps } from '../../store';
import type { BatchState, QueuedDelivery } from './deliver';

interface Waiting extends QueuedDelivery {
  /** When it was queued (performance.now()). */
  queuedAt: number;
  resolve: (outcome: Delivery) => void;
  reject: (error: unknown) => void;
}

export interface QueueLimits {
  /** Deliveries in one batch at most (default 200). */
  deliveries?: number;
  /** Bytes of raw message in one batch at most (default 16 MiB; a bigger message goes alone). */
  bytes?: number;
  /** Batches in the database at once, on sessions none of the others names (default 4). */
  inFlight?: number;
  /** How long the newest batch in the database must have been there before another starts beside it, ms (default SLOW_MS). */
  slowMs?: number;
  /** How long a batch may wait for deliveries on their way after its oldest was queued, ms (default GATHER_MS). */
  gatherMs?: number;
}

/** A batch in the database this long (ms) is slow: another may start beside it. */
export const SLOW_MS = 10;

/** A batch waits for deliveries on their way (announce()) this long (ms) at most after its oldest was queued. */
export const GATHER_MS = 1;

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
  private scheduled = false;
  /** Sessions of the batches in the database now, with how many of those batches name each. */
  private readonly busy = new Map<string, number>();
  /** When each batch in the database started (performance.now()), in start order: one entry a batch. */
  private readonly starts: number[] = [];
  /** Deliveries on their way (announce()) that have not arrived yet. */
  private coming = 0;
  /** A wait for the newest batch to turn slow, or for the deliveries on their way: when it ends (performance.now()). */
  private wake: { timer: ReturnType<typeof setTimeout>; at: number } | undefined;
  private readonly maxDeliveries: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly slowMs: number;
  private readonly gatherMs: number;

  constructor(
    private readonly runBatch: RunBatch,
    limits: QueueLimits = {},
  ) {
    this.maxDeliveries = limits.deliveries ?? 200;
    this.maxBytes = limits.bytes ?? 16 * 1024 * 1024;
    this.maxInFlight = limits.inFlight ?? 4;
    this.slowMs = limits.slowMs ?? SLOW_MS;
    this.gatherMs = limits.gatherMs ?? GATHER_MS;
  }

  /**
   * A delivery is on its way (an SMTP client is sending the message): a batch that could start waits for
   * it (GATHER_MS at most). Call the returned function when its body has arrived, whatever becomes of it;
   * a second call does nothing.
   */
  announce(): () => void {
    this.coming += 1;
    let arrived = false;
    return () => {
      if (arrived) return;
      arrived = true;
      this.coming -= 1;
      this.schedule();
    };
  }

  /** Queues one delivery; resolves after the COMMIT of the batch it went in. */
  deliver(
    sessionIds: readonly string[],
    message: NewMessage,
    inboxLimit: number,
    caps?: StorageCaps,
  ): Promise<Delivery> {
    return new Promise<Delivery>((resolve, reject) => {
      this.queue.push({ sessionIds, message, inboxLimit, caps, resolve, reject, queuedAt: performance.now() });
      this.schedule();
    });
  }

  /** Starts batches on the next turn of the loop (deliveries of the same burst join them), while any may start. */
  private schedule(): void {
    if (this.scheduled || this.starts.length >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.starts.length < this.maxInFlight) {
        if (this.queue.length === 0) return this.rest();
        if (this.starts.length > 0 && !this.newestIsSlow()) return;
        if (this.coming > 0 && !this.gathered()) return;
        const batch = this.take();
        if (batch.length === 0) return;
        const started = performance.now();
        this.starts.push(started);
        const sessions = new Set(batch.flatMap((w) => w.sessionIds));
        for (const id of sessions) this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
        void this.runOne(batch).finally(() => {
          for (const id of sessions) {
            const n = this.busy.get(id)! - 1;
            if (n > 0) this.busy.set(id, n);
            else this.busy.delete(id);
          }
          this.starts.splice(this.starts.indexOf(started), 1);
          this.schedule();
        });
      }
    });
  }

  /** Whether the newest batch in the database has been there SLOW_MS; if not, schedule() runs again when it has. */
  private newestIsSlow(): boolean {
    return this.waited((this.starts.at(-1) ?? -Infinity) + this.slowMs);
  }

  /** Whether the oldest delivery queued has waited GATHER_MS for those on their way; if not, as above. */
  private gathered(): boolean {
    return this.waited(this.queue[0]!.queuedAt + this.gatherMs);
  }

  /** Nothing is queued: no wait is needed (a test's minute-long one must not keep the process up). */
  private rest(): void {
    if (this.wake) clearTimeout(this.wake.timer);
    this.wake = undefined;
  }

  /** Whether `until` (performance.now()) has passed; if not, schedule() runs again then (the earliest wanted). */
  private waited(until: number): boolean {
    const left = until - performance.now();
    if (left <= 0) return true;
    if (this.wake === undefined || this.wake.at > until) {
      if (this.wake) clearTimeout(this.wake.timer);
      const timer = setTimeout(() => {
        this.wake = undefined;
        this.schedule();
      }, Math.ceil(left));
      this.wake = { timer, at: until };
    }
    return false;
  }

  /**
   * The oldest deliveries within the limits that touch no session of a batch in the database now: a
   * delivery waits behind every earlier one to its sessions, so each inbox takes its mail in arrival order
   * (and two batches of this store never wait for each other's locks). Empty when none may go yet.
   */
  private take(): Waiting[] {
    const blocked = new Set(this.busy.keys());
    const taken: Waiting[] = [];
    const left: Waiting[] = [];
    let bytes = 0;
    for (const w of this.queue) {
      const size = w.message.raw.length;
      const fits = taken.length < this.maxDeliveries && (taken.length === 0 || bytes + size <= this.maxBytes);
      if (!fits || w.sessionIds.some((id) => blocked.has(id))) {
        // Later deliveries to any of its sessions must not pass it.
        for (const id of w.sessionIds) blocked.add(id);
        left.push(w);
        continue;
      }
      taken.push(w);
      bytes += size;
    }
    this.queue = left;
    return taken;
  }

  private async runOne(batch: Waiting[]): Promise<void> {
    const state: BatchState = { commitSent: false };
    try {
      const outcomes = await this.runBatch(batch, state);
      for (const [i, w] of batch.entries()) w.resolve(outcomes[i]!);
    } catch (error) {
      if (batch.length === 1 || state.commitSent || !refusedForData(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      for (const w of batch) await this.runOne([w]);
    }
  }
}
