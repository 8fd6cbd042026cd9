/** Percentiles and the summary every latency figure reports (nearest-rank, so a p95 is a sample that happened). */

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** The nearest-rank percentile `p` (0-100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: Math.max(...samples),
  };
}

/** `{prefix_p50, prefix_p95, prefix_max, prefix_n}` (and p99 when asked), rounded for the JSON. */
export function summaryKeys(prefix: string, s: Summary, withP99 = false): Record<string, number> {
  const out: Record<string, number> = {
    [`${prefix}_p50`]: round(s.p50),
    [`${prefix}_p95`]: round(s.p95),
    [`${prefix}_max`]: round(s.max),
    [`${prefix}_n`]: s.n,
  };
  if (withP99) out[`${prefix}_p99`] = round(s.p99);
  return out;
}

/** Two decimals: more would be noise, fewer would hide a ratio's meaning. */
export function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A uniformly random integer in [lo, hi]. */
export function randomBetween(lo: number, hi: number): number {
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
