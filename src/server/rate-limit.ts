/** A sliding-window rate limit per key (client address), on an injected clock so tests never sleep. */

const SWEEP_AT = 10_000;

/** Allows `limit` hits per key in any `windowMs`; a limit <= 0 means no limit. */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Records an attempt at `now` (ms). Returns 0 when allowed, else the whole seconds until one is
   * (at least 1). Refused attempts are not recorded, so waiting the answer out always works.
   */
  hit(key: string, now: number): number {
    if (this.limit <= 0) return 0;
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      const oldest = recent[0] ?? now;
      return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.hits.set(key, recent);
    // Many one-off clients must not grow the map without bound.
    if (this.hits.size > SWEEP_AT) this.sweep(now);
    return 0;
  }

  private sweep(now: number): void {
    for (const [key, times] of this.hits) {
      if (!times.some((t) => t > now - this.windowMs)) this.hits.delete(key);
    }
  }
}
