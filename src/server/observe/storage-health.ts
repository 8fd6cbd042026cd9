/**
 * Whether the storage serves, as the whole service sees it: failing from the first store operation that
 * failed, ok again after a write or a probe that succeeds. /health, /ready and SMTP's EHLO read it
 * (EHLO answers 421 while it fails, so an SMTP health check moves traffic away; then no mail would come
 * to tell us the storage is back): while failing, the storage is probed every `retryMs`, and a store that
 * probes cheaply (a database: one round trip) is probed every `intervalMs` while ok too, so an idle
 * instance notices an outage. /health asks at most once a `maxAgeMs` (a flood of health checks costs
 * one probe a second).
 *
 * The reason of a failure (a driver's message, an errno, an address) goes to the log only: answers to
 * clients say "unavailable". One line when it starts failing, folded repeats while it does, one line when
 * it is back.
 */
import { storageErrorText, StoreClosedError } from '../store/store';
import type { Logger } from './log';

export interface StorageHealthOptions {
  /** Resolves true when the storage answered, false when it has nothing to ask; rejects when it fails. */
  probe: () => Promise<boolean>;
  log: Logger;
  /** Called on each failure (the metrics count them). */
  onError?: () => void;
  clock?: () => number;
  /** Probe every this while failing (default 2000 ms). */
  retryMs?: number;
  /** Probe every this while ok; 0 = never (default 0: for stores whose probe writes). */
  intervalMs?: number;
}

export class StorageHealth {
  private failing: { detail: string; since: number; count: number } | undefined;
  private lastChecked = 0;
  private probing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly clock: () => number;

  constructor(private readonly options: StorageHealthOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Starts the background probes (call once the service is up). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** True while the storage serves (as far as the last operation or probe knows). */
  ok(): boolean {
    return this.failing === undefined;
  }

  /** Why it fails (for the log and the service's own callers; never for a client). */
  detail(): string | undefined {
    return this.failing?.detail;
  }

  /** A store operation failed with `error`. */
  failed(error: unknown): void {
    if (error instanceof StoreClosedError) return; // shutting down is not a storage fault
    const detail = storageErrorText(error);
    const now = this.clock();
    this.lastChecked = now;
    this.options.onError?.();
    const first = !this.failing;
    if (!this.failing) {
      this.failing = { detail, since: now, count: 1 };
      this.schedule();
    } else {
      this.failing.count++;
      this.failing.detail = detail;
    }
    // The start of an outage is always written; its further failures are folded (one line a second).
    this.options.log.event({
      level: 'error',
      event: 'storage.failing',
      text: `storage failing: ${detail}`,
      fields: { reason: detail },
      foldKey: '',
      fold: !first,
    });
  }

  /** A store write (or a probe) succeeded. */
  succeeded(): void {
    const was = this.failing;
    this.lastChecked = this.clock();
    if (!was) return;
    this.failing = undefined;
    const seconds = Math.round((this.clock() - was.since) / 100) / 10;
    this.options.log.event({
      level: 'info',
      event: 'storage.back',
      text: `storage is back after ${seconds} s (${was.count} failed operation(s); the last: ${was.detail})`,
      fields: { reason: was.detail, failures: was.count },
      ends: true,
    });
    this.schedule();
  }

  /** The state, probed first when the last look is older than `maxAgeMs`. */
  async check(maxAgeMs = 1000): Promise<boolean> {
    if (this.clock() - this.lastChecked >= maxAgeMs) await this.probeNow();
    return this.ok();
  }

  private probeNow(): Promise<void> {
    this.probing ??= this.options
      .probe()
      .then(
        (answered) => {
          if (answered) this.succeeded();
          else this.lastChecked = this.clock();
        },
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.probing = undefined;
      });
    return this.probing;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const every = this.failing ? (this.options.retryMs ?? 2000) : (this.options.intervalMs ?? 0);
    if (every <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.probeNow().finally(() => this.schedule());
    }, every);
    this.timer.unref();
  }
}
