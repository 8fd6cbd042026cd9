/**
 * Polling wait for tests: rules of the house say a test waits on what it expects (a frame, a port, a
 * message) with a timeout, never on a bare sleep.
 */

export interface WaitOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Poll this often (default 25 ms). */
  intervalMs?: number;
  /** Said in the error when the wait times out. */
  message?: string;
}

/**
 * Calls `fn` until it returns a truthy value (which is returned) or the timeout passes (which throws,
 * with the last error `fn` threw, if any, as the cause). A throwing `fn` counts as "not yet".
 */
export async function waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.message ?? 'condition';
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`waitFor timed out after ${timeoutMs} ms waiting for ${what}${why}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
