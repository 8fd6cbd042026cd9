/**
 * Turns anything thrown into a line for the status bar, and judges failures for the poller. The client
 * already writes short, token-free messages; this only adds the app's advice and makes sure nothing
 * else (a stack, a raw object) can reach the screen.
 */
import { isApiError, retryAfterMs } from '../../client/api-error';
import type { FailureVerdict } from '../../client/pacing/poller';
import { safeLine } from '../../text/safe-text';

/** A readable one-line description of an error, safe for the terminal. */
export function describeError(error: unknown): string {
  if (isApiError(error)) {
    const text = safeLine(error.message, 200) || 'The service answered with an error';
    if (error.kind === 'rate_limited' && error.details.retryAfterSeconds !== undefined) {
      return `${text} (try again in ${Math.ceil(error.details.retryAfterSeconds)} s)`;
    }
    return text;
  }
  // Not ours: only the message, never a stack, and still made terminal-safe.
  const message = error instanceof Error ? error.message : '';
  return `Unexpected error${message ? `: ${safeLine(message, 200)}` : ''}`;
}

/** How a network failure's verdict starts; the poll line turns it into "Offline, retrying in N s: ...". */
export const OFFLINE = 'Offline: ';

/** How the inbox poller should react to a failed check. */
export function pollVerdict(error: unknown): FailureVerdict {
  if (isApiError(error)) {
    switch (error.kind) {
      case 'session_expired':
        return { message: 'This address has expired', stop: true };
      case 'invalid_token':
        return { message: 'The service no longer knows this address', stop: true };
      case 'rate_limited':
        return { message: 'Rate limited by the service', retryAfterMs: retryAfterMs(error) };
      case 'network':
      case 'timeout':
        return { message: `${OFFLINE}${describeError(error)}` };
      case 'wrong_service':
        // Asking the same address again cannot help: the message says what to check, r asks again.
        return { message: describeError(error), hold: true };
      case 'service': {
        // A 503 (maintenance, overload) that says when to come back is waited out like a 429; the client
        // retries one asking for up to 5 s itself and passes a longer one on for the poller to honour.
        const wait = retryAfterMs(error);
        if (wait !== undefined) {
          const status = error.details.status === undefined ? '' : ` (HTTP ${error.details.status})`;
          return { message: `The service is unavailable${status}`, retryAfterMs: wait };
        }
        return { message: describeError(error) };
      }
      default:
        return { message: describeError(error) };
    }
  }
  return { message: describeError(error) };
}
