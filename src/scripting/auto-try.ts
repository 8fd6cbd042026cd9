/**
 * One try of `--provider auto`: a provider that trickles its answers (or takes its requests and says
 * nothing) is given AUTO_TRY_MS in all, every request of the try ended then, before the next one is
 * tried (before: ~25 s a provider, its requests' own timeouts and retries, with nothing said).
 */
import { ApiError } from '../client/api-error';

/** How long `--provider auto` gives each provider to make an address before it tries the next. */
export const AUTO_TRY_MS = 8_000;

/**
 * Runs `attempt` with a signal that ends its requests after `ms`; past it, fails with
 * ApiError('timeout') at once, whatever `attempt` is still waiting on.
 */
export async function withinDeadline<T>(ms: number, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ended = new ApiError('timeout', `no address within ${Math.round(ms / 1000)} s`, {});
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort(ended);
      reject(ended);
    }, ms);
  });
  try {
    return await Promise.race([attempt(abort.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
