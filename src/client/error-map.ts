/**
 * The one place that turns HTTP answers and network failures into ApiError. Errors are built from scratch
 * with our own short messages: got's errors carry the URL (query string, token and all) in their message,
 * options and cause, so none of them is passed on, not even as `cause`.
 */
import type { RequestError } from 'got';
import { safeLine } from '../text/safe-text';
import { ApiError, type ApiErrorKind } from './api-error';
import { isObject, parseJson } from './wire-json';
import { redact, serviceText } from './redact';

/** An HTTP answer as the mapper needs it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), clamped to a day. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  const text = raw.trim();
  let seconds: number;
  if (/^\d+(\.\d+)?$/.test(text)) seconds = Math.ceil(Number(text));
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(Math.max(seconds, 0), 86_400);
}

// The service's error codes (DESIGN.md) that mean something to the app; any other code is a service error.
const CODE_KINDS: Record<string, ApiErrorKind> = {
  invalid_token: 'invalid_token',
  session_expired: 'session_expired',
  not_found: 'not_found',
  prefix_taken: 'prefix_taken',
  rate_limited: 'rate_limited',
  bad_request: 'bad_request',
  too_large: 'bad_request',
};

/**
 * The service's own words about an error, from whichever field its format keeps them in: `message`
 * (SPEC.md services, and mail.tm's 401s), `hydra:description` (JSON-LD, mail.tm), `detail` (RFC 7807
 * problem+json, mail.tm's plain-JSON answers), then the titles.
 */
function saidBy(payload: Record<string, unknown>): unknown {
  for (const key of ['message', 'hydra:description', 'detail', 'hydra:title', 'title']) {
    const value = payload[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

function kindOfStatus(status: number): ApiErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 401) return 'invalid_token';
  if (status === 410) return 'session_expired';
  if (status === 404) return 'not_found';
  if (status === 409) return 'prefix_taken';
  if (status >= 400 && status < 500) return 'bad_request';
  // 5xx, and a 2xx that says {status:"error"} with a code we do not know.
  return 'service';
}

/**
 * The error for an answer that is an HTTP error or a `{status:"error"}` body (whatever its HTTP status).
 * `secrets` (the token) are scrubbed from anything the service wrote.
 */
export function errorFromAnswer(answer: Answer, secrets: readonly string[], data?: unknown): ApiError {
  const { status } = answer;
  const payload = isObject(data) ? data : (() => {
    const parsed = parseJson(answer.body);
    return isObject(parsed) ? parsed : undefined;
  })();
  const rawCode = payload && typeof payload.error === 'string' ? payload.error : undefined;
  const code = rawCode === undefined ? undefined : redact(safeLine(rawCode, 64), secrets) || undefined;
  const said = payload ? serviceText(saidBy(payload), secrets) : '';
  const retryAfterSeconds = parseRetryAfter(answer.headers['retry-after']);
  const kind = (code && CODE_KINDS[code.toLowerCase()]) || kindOfStatus(status);
  const details = { status, ...(code ? { code } : {}), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  const http = `HTTP ${status}`;
  switch (kind) {
    case 'rate_limited':
      // The wait is in details.retryAfterSeconds; callers word it (the app appends "try again in N s").
      return new ApiError(kind, 'Too many requests to the service', details);
    case 'invalid_token':
      return new ApiError(kind, 'The session is not valid (unknown or missing token)', details);
    case 'session_expired':
      return new ApiError(kind, 'The session has expired', details);
    case 'prefix_taken':
      return new ApiError(kind, 'That name is taken; try another', details);
    case 'not_found':
      return new ApiError(kind, said || `Not found (${http})`, details);
    case 'bad_request':
      return new ApiError(kind, said || (status === 413 ? `The request was too large (${http})` : `The service refused the request (${http})`), details);
    default: {
      const what = code ? `${code}, ${http}` : http;
      return new ApiError('service', `The service failed (${what})${said ? `: ${said}` : ''}`, details);
    }
  }
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EADDRNOTAVAIL: 'address not available',
  ECONNABORTED: 'connection aborted',
  ERR_STREAM_PREMATURE_CLOSE: 'connection closed early',
};

/** The error for a failed got request (network, timeout, HTTP error status). */
export function errorFromRequest(error: RequestError, secrets: readonly string[], timeoutMs: number): ApiError {
  const response = error.response;
  if (error.name === 'HTTPError' && response) {
    // Downloads ask for a Buffer; their error answers are JSON text all the same.
    const raw = response.body;
    const body = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8', 0, Math.min(raw.length, 64 * 1024)) : '';
    return errorFromAnswer({ status: response.statusCode, headers: response.headers, body }, secrets);
  }
  // Only a code that looks like one (ECONNREFUSED, ERR_TLS_...) is echoed: never got's message.
  const code = typeof error.code === 'string' && /^[A-Z0-9_]{1,48}$/.test(error.code) ? error.code : undefined;
  if (error.name === 'TimeoutError') {
    return new ApiError('timeout', `The service did not answer within ${formatSeconds(timeoutMs)}`, {});
  }
  const known = code ? NETWORK_CODES[code] : undefined;
  if (known) return new ApiError('network', `The service is unreachable (${known})`);
  if (code && /CERT|TLS|SSL/.test(code)) {
    return new ApiError('network', `The secure connection failed (${code})`);
  }
  return new ApiError('network', `The request failed${code ? ` (${code})` : ''}`);
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * The same failure as another kind, in the provider's words: a provider module that knows what an
 * answer means on its wire (a mail.tm 422 "already used" is a taken name) says so here, keeping the
 * status, code and Retry-After the answer carried.
 */
export function asKind(error: ApiError, kind: ApiErrorKind, message: string): ApiError {
  return new ApiError(kind, message, error.details);
}
