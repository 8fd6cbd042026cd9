/**
 * The cap on what the service stores in all: at most `maxMessages` messages (any store; a database's
 * rows) and at most `maxBytes` bytes of message files (a data dir). Past either, new mail is refused with
 * 452 4.3.1 (the sender keeps it and retries) until the purge of expired sessions makes room.
 *
 * Counting every message at each delivery would cost a walk of the data dir or a count over the table,
 * so the usage is measured now and then (`intervalMs`, and at start in the background: start-up does not
 * wait for it) and what this instance stores in between is added to the last measure; before a refusal a
 * measure older than a second (or taken before a delete) is taken again. What a transaction will add is
 * counted before its 250 (roomFor at RCPT, hold at the end of DATA), beside what the others hold: ten
 * connections at DATA together once stored 2,000x the cap, each checked only against "already full".
 * Other instances' mail shows at the next measure: the cap can be passed by what they store in one
 * interval, never more.
 *
 * The metrics read the same measures (stored messages and bytes); with neither a cap nor metrics nothing
 * is measured.
 */
import type { Logger } from '../observe/log';
import type { StorageGauge } from '../observe/observer';
import type { StorageUsage } from '../store/store';

export interface StorageCaps {
  /** 0 = no cap. */
  maxMessages: number;
  /** 0 = no cap. */
  maxBytes: number;
}

export interface StorageCapOptions {
  measure: () => Promise<StorageUsage>;
  caps: StorageCaps;
  /** Measure even without a cap (metrics are on). */
  alwaysMeasure: boolean;
  intervalMs: number;
  log: Logger;
}

export class StorageCap {
  private usage: StorageUsage | undefined;
  private caps: StorageCaps;
  private isFull = false;
  private timer: NodeJS.Timeout | undefined;
  private measuring: Promise<void> | undefined;
  private stopped = false;
  /** What transactions past their last check are about to store (counted as stored until they end). */
  private reserved: StorageUsage = { messages: 0, bytes: 0 };
  private measuredAt = 0;
  private readonly now: () => number = Date.now;

  constructor(private readonly options: StorageCapOptions) {
    this.caps = { ...options.caps };
  }

  private get wanted(): boolean {
    return this.options.alwaysMeasure || this.caps.maxMessages > 0 || this.caps.maxBytes > 0;
  }

  /** Measures now (in the background) and every interval after. */
  start(): void {
    this.stopped = false;
    void this.measure();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  limits(): StorageCaps {
    return { ...this.caps };
  }

  /** New caps (a reload): judged against the last measure at once, and measuring starts if it was off. */
  update(caps: Partial<StorageCaps>): void {
    this.caps = { ...this.caps, ...caps };
    this.judge();
    if (this.wanted && !this.usage && !this.measuring && !this.stopped) void this.measure();
  }

  /** True while new mail is to be refused. */
  full(): boolean {
    return this.isFull;
  }

  gauge(): StorageGauge {
    return { full: this.isFull, messages: this.usage?.messages, bytes: this.usage?.bytes };
  }

  /** This instance stored `copies` copies of a message of `bytes` bytes. */
  stored(copies: number, bytes: number): void {
    if (!this.usage) return;
    this.usage = { messages: this.usage.messages + copies, bytes: this.usage.bytes + copies * bytes };
    this.judge();
  }

  /**
   * Room for `copies` more messages of `bytes` each, beside what is stored and what other transactions
   * hold: checked, not held (RCPT asks it for the recipients so far). Before a no, a measure older than a
   * second is taken again: room that deletes (any instance's) or the purge made is seen at once.
   */
  async roomFor(copies: number, bytes: number): Promise<boolean> {
    if (this.fits(copies, bytes)) return true;
    if (this.now() - this.measuredAt < 1000) return false;
    await this.measure();
    return this.fits(copies, bytes);
  }

  /**
   * Holds room for `copies` copies of a message of `bytes` bytes until the release it returns is called
   * (the delivery ended, stored or not); undefined when they would pass a cap. The check and the hold are
   * one step: transactions ending together cannot all take the last room.
   */
  async hold(copies: number, bytes: number): Promise<(() => void) | undefined> {
    // Checked again after the wait: another hold may have taken the room meanwhile.
    if (!(await this.roomFor(copies, bytes)) || !this.fits(copies, bytes)) return undefined;
    const held = { messages: copies, bytes: copies * bytes };
    this.reserved = { messages: this.reserved.messages + held.messages, bytes: this.reserved.bytes + held.bytes };
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved = { messages: this.reserved.messages - held.messages, bytes: this.reserved.bytes - held.bytes };
    };
  }

  /** Whether `copies` x `bytes` more stay within both caps (true before the first measure: nothing known). */
  private fits(copies: number, bytes: number): boolean {
    const u = this.usage;
    if (!u) return true;
    const messages = u.messages + this.reserved.messages + copies;
    const total = u.bytes + this.reserved.bytes + copies * bytes;
    return (this.caps.maxMessages <= 0 || messages <= this.caps.maxMessages) && (this.caps.maxBytes <= 0 || total <= this.caps.maxBytes);
  }

  /** Mail was deleted: the next refusal measures again first. */
  freed(): void {
    this.measuredAt = 0;
  }

  /** Measures now; resolves once measured (a failed measure keeps the last one). */
  measure(): Promise<void> {
    if (!this.wanted) return Promise.resolve();
    this.measuring ??= this.options
      .measure()
      .then(
        (usage) => {
          this.usage = usage;
          this.measuredAt = this.now();
          this.judge();
        },
        (error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          this.options.log.event({ level: 'warn', event: 'storage.measure_failed', text: `measuring the stored mail failed: ${why}`, fields: { reason: why } });
        },
      )
      .finally(() => {
        this.measuring = undefined;
        this.schedule();
      });
    return this.measuring;
  }

  private schedule(): void {
    if (this.stopped || !this.wanted) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.measure(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Full or not by the last measure; one line each way. */
  private judge(): void {
    const u = this.usage;
    if (!u) return;
    const over =
      this.caps.maxMessages > 0 && u.messages >= this.caps.maxMessages
        ? `${u.messages} messages stored, the cap is ${this.caps.maxMessages}`
        : this.caps.maxBytes > 0 && u.bytes >= this.caps.maxBytes
          ? `${u.bytes} bytes stored, the cap is ${this.caps.maxBytes}`
          : undefined;
    if (over && !this.isFull) {
      this.isFull = true;
      this.options.log.event({ level: 'error', event: 'storage.full', text: `storage full: ${over}; new mail is refused (452 4.3.1) until expired mail is purged`, fields: { reason: 'storage_full' } });
    } else if (!over && this.isFull) {
      this.isFull = false;
      this.options.log.event({ level: 'info', event: 'storage.room', text: `storage has room again: ${u.messages} messages, ${u.bytes} bytes stored; new mail is taken`, ends: true });
    }
  }
}
