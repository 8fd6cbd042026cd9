/** Typed errors of the client module. Messages are human text and never carry the token or a URL with it. */

export type ApiErrorKind =
  | 'network'
  | 'timeout'
  | 'rate_limited'
  | 'invalid_token'
  | 'session_expired'
  | 'not_found'
  | 'prefix_taken'
  | 'bad_request'
  | 'service'
  | 'bad_response'
  /**
   * The base URL does not lead to this kind of service: a 404 that is not the service's own (a web
   * server's page), an answer that is not HTTP, or no TLS where https:// asked for it. Asking again
   * will not help; the message says what to check.
   */
  | 'wrong_service'
  /**
   * The provider refuses this client as such: a captcha it wants solved, a country or network it
   * blocks. Asking again will not help; another provider may.
   */
  | 'blocked';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly details: {
      /** HTTP status, when there was an answer. */
      status?: number;
      /** The service's own error code (`error` field), terminal-safe. */
      code?: string;
      /** Seconds to wait, from Retry-After, for rate_limited (and 503). */
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/** What a request, or a wait before one, ends with once its client's signal aborted (its caller is done). */
export const cancelled = (): ApiError => new ApiError('network', 'The request was cancelled');

/**
 * How long a failed call asks the caller to wait before trying again: a 429's Retry-After (30 s when it
 * gave none), or a 503's when it gave one. Undefined for any other failure: then the caller backs off.
 * One reading for the app's poller and the scripting commands.
 */
export function retryAfterMs(error: unknown): number | undefined {
  if (!isApiError(error)) return undefined;
  const seconds = error.details.retryAfterSeconds;
  if (error.kind === 'rate_limited') return (seconds ?? 30) * 1000;
  if (error.kind === 'service' && seconds !== undefined && seconds > 0) return seconds * 1000;
  return undefined;
}

/**
 * The service does not know a token whose address has not expired yet (401 before `expiresAtMs`): its
 * data was reset, or another service answers at its URL. After expiry the same 401 is only a purge.
 */
export function refusedBeforeExpiry(error: unknown, expiresAtMs: number, now: number): boolean {
  return isApiError(error) && error.kind === 'invalid_token' && expiresAtMs > now;
}

// Failures where another provider may do: down, limiting, blocking, or not this kind of service.
const ELSEWHERE: ReadonlySet<ApiErrorKind> = new Set([
  'network',
  'timeout',
  'rate_limited',
  'service',
  'bad_response',
  'wrong_service',
  'blocked',
]);

/**
 * True when another provider may do where this one failed (`auto` moves on): it is down, limiting,
 * blocking this client, or not this kind of service. A refused name or a bad request is the user's.
 */
export function canFallBack(error: unknown): error is ApiError {
  return isApiError(error) && ELSEWHERE.has(error.kind);
}
