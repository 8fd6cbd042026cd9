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
  | 'bad_response';

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

/**
 * The service does not know a token whose address has not expired yet (401 before `expiresAtMs`): its
 * data was reset, or another service answers at its URL. After expiry the same 401 is only a purge.
 */
export function refusedBeforeExpiry(error: unknown, expiresAtMs: number, now: number): boolean {
  return isApiError(error) && error.kind === 'invalid_token' && expiresAtMs > now;
}
