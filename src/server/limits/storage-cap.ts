/**
 * The cap on what the service stores in all: at most `maxMessages` messages and at most `maxBytes` bytes
 * (a data dir: its message files; a database: the messages as received). Past either, new mail is
 * refused with 452 4.3.1 (the sender keeps it and retries) until the purge of expired sessions or a
 * delete makes room.
 *
 * What a transaction will add is counted before its 250 (roomFor at RCPT, hold at the end of DATA),
 * beside what is stored and what this instance's other transactions hold: ten connections at DATA
 * together once stored 2,000x the cap, each checked only against "already full".
 *
 * A data dir has one instance, so its count here is exact; measuring it walks the data dir, so it is
 * measured now and then (`intervalMs`, and at start in the background) and what this instance stores in
 * between is added; before a refusal a measure older than a second (or taken before a delete) is taken
 * again. A database shared by instances keeps the cap itself where it stores (Store.deliver: the check
 * and the insert one transaction under one lock, migration 7), and keeps the totals (`cheap`): they are
 * read again before every refusal, so room any instance's delete made is seen at once; the periodic
 * measure recounts them (`recount`). Here the count only answers RCPT and MAIL FROM early.
 *
 * The metrics read the same measures (stored messages and bytes); with neither a cap nor metrics nothing
 * is measured.
 */
import type { Logger } from '../observe/log';
import type { StorageGauge } from '../observe/observer';
import type { StorageCaps, StorageUsage } from '../store/store';

export type { StorageCaps } from '../store/store';

export interface StorageCapOptions {
  /** `recount`: the periodic measure (and the first), which also corrects totals a store keeps. */
  measure: (recount: boolean) => Promise<StorageUsage>;
  /** The store keeps its totals (Store.keepsUsage): a measure is one cheap read, taken before every refusal. */
  cheap?: boolean;
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
  /** Deletes heard (freed()), and how many had been when the last measure began. */
  private freedCount = 0;
  private measuredFreed = 0;
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
    void this.measure(true);
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
    if (this.wanted && !this.usage && !this.measuring && !this.stopped) void this.measure(true);
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
   * hold: checked, not held (RCPT asks it for the recipients so far). Before a no, the usage is measured
   * again (a store that keeps it: always; else when the measure is older than a second or began before
   * a delete): room that deletes (any instance's) or the purge made is seen at once.
   */
  async roomFor(copies: number, bytes: number): Promise<boolean> {
    if (this.fits(copies, bytes)) return true;
    const fresh = this.measuredFreed === this.freedCount && this.now() - this.measuredAt < 1000;
    if (fresh && !this.options.cheap) return false;
    await this.measure();
    // The measure shared began before a delete: one more.
    if (this.measuredFreed !== this.freedCount) await this.measure();
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
    return (
      (this.caps.maxMessages <= 0 || messages <= this.caps.maxMessages) &&
      (this.caps.maxBytes <= 0 || total <= this.caps.maxBytes)
    );
  }

  /** Mail was deleted: the next refusal measures again first. */
  freed(): void {
    this.freedCount += 1;
  }

  /** Measures now (`recount`: see StorageCapOptions.measure); resolves once measured (a failed measure keeps the last one). */
  measure(recount = false): Promise<void> {
    if (!this.wanted) return Promise.resolve();
    const freed = this.freedCount;
    this.measuring ??= this.options
      .measure(recount)
      .then(
        (usage) => {
          this.usage = usage;
          this.measuredAt = this.now();
          this.measuredFreed = freed;
          this.judge();
        },
        (error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          this.options.log.event({
            level: 'warn',
            event: 'storage.measure_failed',
            text: `measuring the stored mail failed: ${why}`,
            fields: { reason: why },
          });
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
    this.timer = setTimeout(() => void this.measure(true), this.options.intervalMs);
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
      this.options.log.event({
        level: 'error',
        event: 'storage.full',
        text: `storage full: ${over}; new mail is refused (452 4.3.1) until expired mail is purged`,
        fields: { reason: 'storage_full' },
      });
    } else if (!over && this.isFull) {
      this.isFull = false;
      this.options.log.event({
        level: 'info',
        event: 'storage.room',
        text: `storage has room again: ${u.messages} messages, ${u.bytes} bytes stored; new mail is taken`,
        ends: true,
      });
    }
  }
}
