/**
 * The one place that turns HTTP answers and network failures into ApiError. Errors are built from scratch
 * with our own short messages: got's errors carry the URL (query string, token and all) in their message,
 * options and cause, so none of them is passed on, not even as `cause`.
 */
import type { RequestError } from 'got';
import { clipRaw, safeLine } from '../../text/safe-text';
import { ApiError, type ApiErrorKind } from '../api-error';
import { badResponse, isObject, parseJson } from '../wire/wire-json';
import { redact, serviceText } from './redact';

/** An HTTP answer as the mapper needs it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// RFC 9110 §10.2.3: Retry-After is delay-seconds (digits only) or an HTTP-date in one of its three forms
// (IMF-fixdate, obsolete RFC 850, asctime). Anything else ("-5", "5, 5", "soon") is no Retry-After at all.
const DELAY_SECONDS = /^\d{1,10}$/;
const HTTP_DATES = [
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * Seconds to wait from a Retry-After header as RFC 9110 reads it, clamped to a day; a date already past
 * is 0 (the caller keeps its floor). Undefined when absent or not a valid value (then the caller's default).
 */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  let seconds: number;
  if (DELAY_SECONDS.test(text)) seconds = Number(text);
  else {
    if (!HTTP_DATES.some((form) => form.test(text))) return undefined;
    const at = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(Math.max(seconds, 0), 86_400);
}

// The service's error codes (docs/server/http-api.md) that mean something to the app; any other is a service error.
const CODE_KINDS: Record<string, ApiErrorKind> = {
  invalid_token: 'invalid_token',
  session_expired: 'session_expired',
  not_found: 'not_found',
  prefix_taken: 'prefix_taken',
  rate_limited: 'rate_limited',
  bad_request: 'bad_request',
  too_large: 'bad_request',
};

// Violations said at most (a hostile list is long), and each one's length before they are joined.
const MAX_VIOLATIONS = 4;
const VIOLATION_MAX = 120;
// A title that says nothing (API Platform's for every error): its description or violations say more.
const EMPTY_TITLES = /^\s*(an error occurred|error)\.?\s*$/i;

/**
 * "address: This value is already used." for each field an API Platform answer (mail.tm) names in its
 * `violations`, both in problem documents and in the older Hydra shape; undefined when it names none.
 */
function violationsText(payload: Record<string, unknown>): string | undefined {
  const list = payload.violations;
  if (!Array.isArray(list)) return undefined;
  const parts: string[] = [];
  for (const v of list.slice(0, MAX_VIOLATIONS)) {
    if (!isObject(v) || typeof v.message !== 'string' || !v.message.trim()) continue;
    const field = typeof v.propertyPath === 'string' && v.propertyPath.trim() ? `${clipRaw(v.propertyPath, 40)}: ` : '';
    parts.push(`${field}${clipRaw(v.message, VIOLATION_MAX)}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * The service's own words about an error, from whichever field its format keeps them in: `message`
 * (tempmail services, and mail.tm's 401s), the violations per field (mail.tm's 422), `hydra:description`
 * (JSON-LD, mail.tm), `detail` (RFC 7807 problem+json, mail.tm's plain-JSON answers), then the titles
 * unless they are the empty "An error occurred".
 */
function saidBy(payload: Record<string, unknown>): unknown {
  const message = payload.message;
  if (typeof message === 'string' && message.trim()) return message;
  const violations = violationsText(payload);
  if (violations) return violations;
  for (const key of ['hydra:description', 'detail', 'hydra:title', 'title']) {
    const value = payload[key];
    if (typeof value === 'string' && value.trim() && !(key.endsWith('title') && EMPTY_TITLES.test(value))) return value;
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

// What to check when the address is not the service's: said after every such error.
const CHECK_URL = 'check the base URL';

/** True for an answer that is a web page: an HTML content type, or a body that starts like one. */
function isWebPage(answer: Answer): boolean {
  const type = answer.headers['content-type'];
  if (typeof type === 'string' && /^\s*(?:text\/html|application\/xhtml)/i.test(type)) return true;
  return /^\s*(?:<!doctype html|<html|<head|<body|<\?xml)/i.test(answer.body.slice(0, 256));
}

/**
 * A 404 (or 405, or 501) that is no API's answer at all: the base URL leads to a web server without this API (a
 * site's 404 page, a framework's "Cannot GET /domains" in plain text). Asking again will not help. A 404
 * in JSON is an API speaking (the service's "no such message", mail.tm's hydra error): its own mapping.
 */
function wrongService(answer: Answer, payload: Record<string, unknown> | undefined): ApiError | null {
  const { status } = answer;
  // 501: a plain web server that serves no POST at all (python's http.server says so to create-session).
  if ((status !== 404 && status !== 405 && status !== 501) || payload !== undefined) return null;
  const http = `HTTP ${status}`;
  if (isWebPage(answer)) {
    return new ApiError(
      'wrong_service',
      `That address answered with a web page, not this service's API (${http}): ${CHECK_URL}`,
      { status },
    );
  }
  return new ApiError('wrong_service', `That address has no such API (${http}): ${CHECK_URL}`, { status });
}

/**
 * A successful (2xx) answer whose body is not JSON. A web page there is most likely a wrong base URL,
 * but may be a Wi-Fi login page in the way for now: it is said so, and asked again later.
 */
export function errorFromNonJson(answer: Answer): ApiError {
  if (isWebPage(answer)) {
    return new ApiError(
      'bad_response',
      `That address answered with a web page, not this service's API (HTTP ${answer.status}): ${CHECK_URL}`,
      {
        status: answer.status,
      },
    );
  }
  return badResponse(answer.body.trim() ? 'not JSON' : 'empty body');
}

/** A 3xx answer: redirects are not followed (a token must not travel to another address). */
export function errorFromRedirect(status: number): ApiError {
  return new ApiError('bad_response', `That address redirects elsewhere (HTTP ${status}): ${CHECK_URL}`, { status });
}

/**
 * The error for an answer that is an HTTP error or a `{status:"error"}` body (whatever its HTTP status).
 * `secrets` (the token) are scrubbed from anything the service wrote.
 */
export function errorFromAnswer(answer: Answer, secrets: readonly string[], data?: unknown): ApiError {
  const { status } = answer;
  const payload = isObject(data)
    ? data
    : (() => {
        const parsed = parseJson(answer.body);
        return isObject(parsed) ? parsed : undefined;
      })();
  const wrong = wrongService(answer, payload);
  if (wrong) return wrong;
  const rawCode = payload && typeof payload.error === 'string' ? payload.error : undefined;
  const code = rawCode === undefined ? undefined : redact(safeLine(rawCode, 64), secrets) || undefined;
  const said = payload ? serviceText(saidBy(payload), secrets) : '';
  const retryAfterSeconds = parseRetryAfter(answer.headers['retry-after']);
  const kind = (code && CODE_KINDS[code.toLowerCase()]) || kindOfStatus(status);
  const details = {
    status,
    ...(code ? { code } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
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
      return new ApiError(
        kind,
        said || (status === 413 ? `The request was too large (${http})` : `The service refused the request (${http})`),
        details,
      );
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
  ETIMEDOUT: 'connection timed out',
  ERR_STREAM_PREMATURE_CLOSE: 'connection closed early',
};

// Certificate trouble, in words: the code itself means nothing to a person.
const CERT_CODES: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet (is the clock right?)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate comes from an authority this computer does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate comes from an authority this computer does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate comes from an authority this computer does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate cannot be checked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
  CERT_REVOKED: 'its certificate was revoked',
};

/**
 * A network or certificate error code (ECONNREFUSED, CERT_HAS_EXPIRED, ...) in a person's words; undefined
 * for a code these tables do not know (say "a network error" then, never the code).
 */
export function networkWords(code: string): string | undefined {
  return Object.hasOwn(NETWORK_CODES, code)
    ? NETWORK_CODES[code]
    : Object.hasOwn(CERT_CODES, code)
      ? CERT_CODES[code]
      : undefined;
}

/** The error for a failed got request (network, timeout, HTTP error status). Never a raw error code. */
export function errorFromRequest(error: RequestError, secrets: readonly string[], timeoutMs: number): ApiError {
  const response = error.response;
  if (error.name === 'HTTPError' && response) {
    // Downloads ask for a Buffer; their error answers are JSON text all the same.
    const raw = response.body;
    // A text answer is a string; a bytes answer a Uint8Array (got 16; a Buffer is one too).
    const body =
      typeof raw === 'string'
        ? raw
        : raw instanceof Uint8Array
          ? Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, 64 * 1024)).toString('utf8')
          : '';
    return errorFromAnswer({ status: response.statusCode, headers: response.headers, body }, secrets);
  }
  // Only a code that looks like one (ECONNREFUSED, HPE_..., ERR_TLS_...) is read: never got's message.
  const code = typeof error.code === 'string' && /^[A-Z0-9_]{1,48}$/.test(error.code) ? error.code : '';
  if (error.name === 'TimeoutError') {
    return new ApiError('timeout', `The service did not answer within ${formatSeconds(timeoutMs)}`, {});
  }
  const known = NETWORK_CODES[code];
  if (known) return new ApiError('network', `The service is unreachable (${known})`);
  // Node's HTTP parser refused the answer: what listens there does not speak HTTP (another kind of
  // server, or TLS when http:// was asked for).
  if (code.startsWith('HPE_')) {
    return new ApiError('wrong_service', 'That address does not speak HTTP: check the port, or try https://');
  }
  // The TLS handshake met something that is not TLS: https:// to a plain HTTP port.
  if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
    return new ApiError('wrong_service', 'That address does not speak HTTPS: try http://, or check the port');
  }
  const cert = CERT_CODES[code];
  if (cert) return new ApiError('network', `The secure connection failed: ${cert}`);
  if (/CERT|TLS|SSL/.test(code)) return new ApiError('network', 'The secure connection failed');
  return new ApiError('network', 'The request failed (a network error)');
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
