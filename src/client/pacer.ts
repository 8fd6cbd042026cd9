/**
 * Spaces requests out to a provider's documented rate (mail.tm: 8 per second per address): each call
 * starts no sooner than `intervalMs` after the one before it. Requests still run concurrently once
 * started; only their starts are spaced. A 429 that comes anyway is the caller's to wait out.
 */

export interface Pacer {
  /** Runs `fn` once its turn comes. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** A pacer allowing `perSecond` starts a second (0 or less: no spacing). */
export function createPacer(perSecond: number, now: () => number = Date.now): Pacer {
  const intervalMs = perSecond > 0 ? 1000 / perSecond : 0;
  let next = 0;
  return {
    async run(fn) {
      const at = now();
      const start = Math.max(at, next);
      next = start + intervalMs;
      if (start > at) await new Promise((resolve) => setTimeout(resolve, start - at));
      return fn();
    },
  };
}
