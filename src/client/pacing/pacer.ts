/**
 * Spaces requests out to a provider's documented rate (mail.tm: 8 per second per address): each call
 * starts no sooner than `intervalMs` after the one before it. Requests still run concurrently once
 * started; only their starts are spaced. A 429 that comes anyway holds every start until the wait it
 * asked for is over (`holdUntil`). This one paces one process; pacing-file.ts paces every process
 * of the same user with the same rule, through a small file in the state directory.
 */

import { cancelled } from '../api-error';

export interface Pacer {
  /** Runs `fn` once its turn comes; a `signal` that aborts meanwhile ends the wait (ApiError, nothing run). */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** No call starts before `atMs` (a 429's Retry-After, for every caller of this provider). */
  holdUntil(atMs: number): void;
}

/** The start a call gets: the later of now and the next free turn; the turn after it is `intervalMs` on. */
export function nextStart(now: number, next: number, intervalMs: number): { start: number; next: number } {
  const start = Math.max(now, next);
  return { start, next: start + intervalMs };
}

/** The spacing of starts for `perSecond` calls a second (0 or less: none). */
export const intervalOf = (perSecond: number): number => (perSecond > 0 ? 1000 / perSecond : 0);

/** A pacer allowing `perSecond` starts a second in this process (0 or less: no spacing). */
export function createPacer(perSecond: number, now: () => number = Date.now): Pacer {
  const intervalMs = intervalOf(perSecond);
  let next = 0;
  return {
    async run(fn, signal) {
      const at = now();
      const turn = nextStart(at, next, intervalMs);
      next = turn.next;
      await pause(turn.start - at, signal);
      return fn();
    },
    holdUntil(atMs) {
      next = Math.max(next, atMs);
    },
  };
}

/**
 * Waits `ms` (none when 0 or less). A `signal` that aborts ends it at once, its timer cleared, with the
 * ApiError of a cancelled request: a caller that is done leaves nothing behind to keep its process alive.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelled());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
