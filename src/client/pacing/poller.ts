/**
 * The inbox poller: plain logic with timers, no React, no network of its own. It runs one task on an
 * interval, never two at once; `refresh()` runs it now; failures back off exponentially with jitter up
 * to a cap; a rate-limit answer is waited out for at least its Retry-After; a failure that asking again
 * cannot fix holds it until `refresh()`; a fatal failure (expired session, unknown token) stops it for good. The caller decides what a failure means via `classify`,
 * which keeps this module free of any one provider's error types.
 */
import { ownRateWait } from './rate-limit-wait';

/**
 * What the poller is doing right now. 'held': a failure that asking again cannot fix (the address is
 * not the service's) ended the automatic checks; `refresh()` asks again.
 */
export type PollPhase = 'idle' | 'checking' | 'waiting' | 'retrying' | 'held' | 'stopped';

/** A snapshot of the poller, for the status line. Times are ms on the poller's clock. */
export interface PollStatus {
  phase: PollPhase;
  /** When the last successful check finished. */
  lastSuccessAt: number | null;
  /** When the next check is due (waiting / retrying). */
  nextAt: number | null;
  /** Consecutive failures. */
  failures: number;
  /** Readable text of the last failure, null after a success. */
  error: string | null;
  /** The current wait comes from the service's Retry-After: `refresh()` does not cut it short. */
  rateLimited: boolean;
  /** Why the poller stopped (phase 'stopped'). */
  stopReason: string | null;
}

/** The status of a poller that has not checked yet (also what a view shows before its poller exists). */
export const IDLE_POLL_STATUS: Readonly<PollStatus> = Object.freeze({
  phase: 'idle',
  lastSuccessAt: null,
  nextAt: null,
  failures: 0,
  error: null,
  rateLimited: false,
  stopReason: null,
});

/** How the caller judges one failure. */
export interface FailureVerdict {
  /** A readable line for the status bar (never a stack, never the token). */
  message: string;
  /** Give up for good (expired session, invalid token). */
  stop?: boolean;
  /** Check no more by itself, but let `refresh()` ask again (a wrong base URL: asking again will not help). */
  hold?: boolean;
  /** The service asked us to wait this long (429 Retry-After). */
  retryAfterMs?: number;
}

export interface PollerOptions<T> {
  /** Time between checks while all is well. */
  intervalMs: number;
  /** One check. The poller never calls it while a previous call is pending. */
  task: () => Promise<T>;
  /** Called with each successful result. */
  onResult: (value: T) => void;
  /** Called on every change of status. */
  onStatus?: (status: PollStatus) => void;
  /** Turns a failure into a verdict. */
  classify: (error: unknown) => FailureVerdict;
  /** Ceiling of the backoff (default 60 s). */
  maxBackoffMs?: number;
  /** First backoff step (default 2 s); doubles on each further failure. */
  baseBackoffMs?: number;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
  /** Clock for the status times (default Date.now). */
  now?: () => number;
}

export interface Poller {
  /** Runs the first check now and keeps polling. Calling it again does nothing. */
  start(): void;
  /** Checks now unless a check is pending, a Retry-After wait runs or it stopped. True when it started one. */
  refresh(): boolean;
  /**
   * Time between checks from now on (while all is well). A wait under way that would end later than the
   * new interval from now is cut to it; a longer interval starts with the next wait.
   */
  setInterval(ms: number): void;
  /** Stops for good; a pending check's result is dropped. */
  stop(reason?: string): void;
  /** The current status. */
  status(): PollStatus;
}

/** Longest Retry-After we honour as given; beyond it a confused service would freeze the inbox. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/**
 * Delay before retry number `failures` (1-based): base * 2^(failures-1), capped, with "equal jitter"
 * (half fixed, half random) so many clients never retry in lockstep but none retries at once.
 */
export function backoffDelay(failures: number, baseMs: number, maxMs: number, random: () => number): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.min(maxMs, Math.max(0, Math.round(jittered)));
}

/**
 * Delay before retry number `failures`: the service's Retry-After when it gave one (a floor, capped,
 * plus a little jitter so clients spread out), else backoffDelay.
 */
export function failureDelay(
  failures: number,
  retryAfterMs: number | undefined,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  if (retryAfterMs !== undefined && retryAfterMs > 0)
    return Math.min(MAX_RETRY_AFTER_MS, retryAfterMs) + Math.round(random() * 250);
  return backoffDelay(failures, baseMs, maxMs, random);
}

/** Creates a poller; nothing runs until `start()`. */
export function createPoller<T>(options: PollerOptions<T>): Poller {
  const maxBackoff = options.maxBackoffMs ?? 60_000;
  const baseBackoff = options.baseBackoffMs ?? 2_000;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  let intervalMs = options.intervalMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = false;
  let started = false;
  let state: PollStatus = { ...IDLE_POLL_STATUS };

  const publish = (patch: Partial<PollStatus>) => {
    state = { ...state, ...patch };
    options.onStatus?.(state);
  };

  const clearTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  const schedule = (delayMs: number, patch: Partial<PollStatus>) => {
    clearTimer();
    timer = setTimeout(run, delayMs);
    publish({ ...patch, nextAt: now() + delayMs });
  };

  const onSuccess = (value: T) => {
    try {
      options.onResult(value);
    } catch {
      // The consumer's bug must not kill polling; the next result gets another chance.
    }
    schedule(intervalMs, {
      phase: 'waiting',
      lastSuccessAt: now(),
      failures: 0,
      error: null,
      rateLimited: false,
    });
  };

  const onFailure = (error: unknown) => {
    let verdict: FailureVerdict;
    try {
      verdict = options.classify(error);
    } catch {
      verdict = { message: 'The check failed' };
    }
    const failures = state.failures + 1;
    if (verdict.stop) {
      clearTimer();
      publish({ phase: 'stopped', failures, error: verdict.message, stopReason: verdict.message, nextAt: null });
      return;
    }
    if (verdict.hold) {
      clearTimer();
      publish({ phase: 'held', failures, error: verdict.message, rateLimited: false, nextAt: null });
      return;
    }
    const rateLimited = verdict.retryAfterMs !== undefined && verdict.retryAfterMs > 0;
    const delay = failureDelay(failures, verdict.retryAfterMs, baseBackoff, maxBackoff, random);
    schedule(delay, { phase: 'retrying', failures, error: verdict.message, rateLimited });
  };

  function run(): void {
    timer = undefined;
    if (state.phase === 'stopped' || inFlight) return;
    inFlight = true;
    publish({ phase: 'checking', nextAt: null });
    let promise: Promise<T>;
    try {
      // Its own backoff waits out a 429's Retry-After and says so on the poll line: the client does not wait for it.
      promise = ownRateWait(options.task);
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (value) => {
        inFlight = false;
        if (state.phase !== 'stopped') onSuccess(value);
      },
      (error: unknown) => {
        inFlight = false;
        if (state.phase !== 'stopped') onFailure(error);
      },
    );
  }

  return {
    start() {
      if (started || state.phase === 'stopped') return;
      started = true;
      run();
    },
    refresh() {
      if (!started || state.phase === 'stopped' || inFlight || state.rateLimited) return false;
      clearTimer();
      run();
      return true;
    },
    setInterval(ms) {
      intervalMs = ms;
      if (state.phase === 'waiting' && (state.nextAt ?? 0) > now() + ms) schedule(ms, {});
    },
    stop(reason = 'stopped') {
      if (state.phase === 'stopped') return;
      clearTimer();
      publish({ phase: 'stopped', stopReason: reason, nextAt: null });
    },
    status: () => state,
  };
}
