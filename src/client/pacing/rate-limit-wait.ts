/**
 * A call in its turn (the provider's pacer), asked again after each 429 whose wait is within bounds:
 * its Retry-After (1 s without one, as mail.tm's own JavaScript wrapper waits), every process's next
 * start held until then through the pacer. A 429 is a refusal, so asking again is safe even for a POST
 * (nothing was made). A provider asking for longer than one wait may take is not waited on: its error
 * says when to come back.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { cancelled, isApiError } from '../api-error';
import { pause, type Pacer } from './pacer';

/** How long a call may wait out 429s: one wait at most `perWaitMs`, `totalMs` in all. */
export interface RateLimitWait {
  perWaitMs: number;
  totalMs: number;
  /** Told before each wait (the status line, stderr): the seconds it waits. */
  onWait?: (seconds: number) => void;
}

/** A one-shot command's and the app's bounds: 10 s a wait, 30 s in all. */
export const RATE_LIMIT_WAIT: Omit<RateLimitWait, 'onWait'> = { perWaitMs: 10_000, totalMs: 30_000 };

/** The words for a wait, as the commands and the app say it: "mail.tm is limiting requests: waiting 3 s, then asking again". */
export const rateLimitWords = (who: string, seconds: number): string =>
  `${who} is limiting requests: waiting ${seconds} s, then asking again`;

const DEFAULT_RATE_WAIT_MS = 1_000;
// Retry-After: 0 (or a date already past) is still a pause of a whole second: asking again at once
// meets the same limit, and the wait said is the wait taken.
const MIN_RATE_WAIT_MS = 1_000;

// Set while a caller that waits out a 429 itself runs (the app's poller: its poll line says so). Made
// on first use, and node:async_hooks taken by require(): an ES import of it (and the store) loaded
// Node's async-context modules before the app's first frame, where nothing polls yet.
let waitsItself: AsyncLocalStorage<true> | undefined;

/** Runs `task` with every 429 in it left to the caller, whatever the client's bounds: it waits itself. */
export function ownRateWait<T>(task: () => Promise<T>): Promise<T> {
  const { AsyncLocalStorage: Store } = createRequire(import.meta.url)(
    'node:async_hooks',
  ) as typeof import('node:async_hooks');
  waitsItself ??= new Store<true>();
  return waitsItself.run(true, task);
}

/**
 * Runs `attempt` in its turn; without `limits` (or within ownRateWait), a 429 is the caller's. A `signal`
 * that aborts ends the turn's wait and a 429's (ApiError, nothing more asked).
 */
export async function pacedCall<T>(
  attempt: () => Promise<T>,
  pacer: Pacer | undefined,
  given: RateLimitWait | undefined,
  signal?: AbortSignal,
): Promise<T> {
  const limits = waitsItself?.getStore() ? undefined : given;
  let waited = 0;
  for (;;) {
    if (signal?.aborted) throw cancelled();
    try {
      return await (pacer ? pacer.run(attempt, signal) : attempt());
    } catch (error) {
      if (!limits || !isApiError(error) || error.kind !== 'rate_limited' || signal?.aborted) throw error;
      const asked = error.details.retryAfterSeconds;
      const ms = Math.max(MIN_RATE_WAIT_MS, asked === undefined ? DEFAULT_RATE_WAIT_MS : Math.ceil(asked) * 1000);
      if (ms > limits.perWaitMs || waited + ms > limits.totalMs) throw error;
      waited += ms;
      limits.onWait?.(Math.ceil(ms / 1000));
      if (pacer) pacer.holdUntil(Date.now() + ms);
      else await pause(ms, signal);
    }
  }
}
