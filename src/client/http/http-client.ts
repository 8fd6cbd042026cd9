/**
 * The one got instance every provider talks through, and the rules it carries for all of them: a
 * timeout per request (a call's whole wait: a try that timed out is not tried again), GETs (only)
 * retried on network errors and 5xx with exponential backoff and jitter, redirects never followed (a
 * token in a query string must not travel to a host nobody configured), answers over a size cap refused, and every failure turned into an ApiError built from
 * scratch, with every secret this client has seen redacted (got's own errors carry the URL).
 * Providers map their wire format on top of `request()`; none of them builds a got instance.
 * got (and the http2, TLS and cache code it brings) is loaded at the first request, not with this
 * module: the app draws its first frame without it (preloadHttp() loads it ahead of need).
 */
import type { ExtendOptions, Got, RequestError, RequestPromise, Response, RetryObject } from 'got';
import { checkBaseUrl } from '../base-url';
import { cancelled, isApiError } from '../api-error';
import { errorFromRedirect, errorFromRequest } from './error-map';
import { loadGot, OVERSIZE, toApiError } from './got-load';
import { openStream, type HttpRequest, type HttpStream } from './http-stream';
import { keepNewest } from '../wire/keep-newest';
import type { Pacer } from '../pacing/pacer';
import { pacedCall, type RateLimitWait } from '../pacing/rate-limit-wait';
import { USER_AGENT } from './user-agent';

export { checkBaseUrl };
export type { HttpRequest, HttpStream } from './http-stream';
export { preloadHttp } from './got-load';
export { RATE_LIMIT_WAIT, type RateLimitWait } from '../pacing/rate-limit-wait';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_BASE_MS = 500;
// A 503 asking us to come back later than this is surfaced (with retryAfterSeconds) instead of waited on.
const MAX_RETRY_AFTER_MS = 5_000;
// Bigger than any message the reference service accepts (10 MiB raw) once JSON-escaped; a service that
// streams more is broken or hostile and must not exhaust memory.
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
// Secrets one client keeps for redaction: every address of a long session, and then some. Bounded
// because a provider may hand out a new token at every answer (Guerrilla Mail's sid_token may change at
// any call), and each is kept, and looked for in every error, from then on.
const MAX_SECRETS = 1_024;
// 5xx worth another try; 429 is deliberately absent (the poller waits out Retry-After instead).
const RETRY_STATUS = [500, 502, 503, 504, 521, 522, 524];
// Network errors worth another try: got's own list less ETIMEDOUT. A try that timed out has taken the
// call's whole time, and its error says that time ("did not answer within 10 s"): tried again, a service
// that takes requests and never answers held a GET three times as long as it said (issue 36).
const RETRY_CODES = ['ECONNRESET', 'EADDRINUSE', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EAI_AGAIN'];

export interface HttpClientOptions {
  /** Base URL; paths of requests are relative to it (a path prefix is kept). */
  baseUrl: string;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Retries for GETs on network errors and 5xx (default 2); never after a timeout. */
  retries?: number;
  /** First retry delay in ms, doubled per attempt with a little jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Answers larger than this are refused as bad_response (default 64 MiB). */
  maxResponseBytes?: number;
  /** Spaces request starts (a provider's documented rate, shared between processes); none by default. */
  pacer?: Pacer;
  /** Waiting out a 429's Retry-After and asking again; without it a 429 is the caller's. */
  rateLimitWait?: RateLimitWait;
  /** Hears the headers of every answer, errors included (what a service says of itself: tempmail/capabilities.ts). */
  onHeaders?(headers: Response['headers']): void;
  /**
   * Aborts every request and wait of this client, in flight or to come (client-types.ts ApiOptions.signal);
   * a request fails with the signal's reason when that is an ApiError (the deadline of a try of `--provider auto`).
   */
  signal?: AbortSignal;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * An answer with status < 300 (got throws for 4xx/5xx, and redirects are refused), or 304 to a request
 * that sent If-None-Match.
 */
export interface HttpAnswer<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

export interface HttpClient {
  /** The base URL as normalised (one trailing slash, no query or fragment). */
  readonly baseUrl: string;
  request(method: HttpMethod, path: string, request?: HttpRequest): Promise<HttpAnswer<string>>;
  /** A GET whose body is bytes (attachments, raw messages). */
  requestBuffer(path: string, request?: HttpRequest): Promise<HttpAnswer<Buffer>>;
  /**
   * A GET whose answer is read as it arrives (an event stream): resolves once the headers are in (a
   * status of 300 or more is an ApiError, as for `request`), with no overall timeout and no retry.
   */
  stream(path: string, request?: HttpRequest): Promise<HttpStream>;
  /** Registers a secret learned from an answer (a created session's token). */
  addSecret(secret: string): void;
  /** Every secret seen so far, for error mapping outside `request()`. */
  secrets(): readonly string[];
}

/** The got options every request of a client carries: its base, timeout, retries and error mapping. */
export function gotOptions(
  base: string,
  options: HttpClientOptions,
  secretList: () => readonly string[],
): ExtendOptions {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseDelay = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_MS;
  return {
    prefixUrl: base,
    timeout: { request: timeoutMs },
    responseType: 'text',
    // A redirect would carry the token (query string) to an address nobody configured.
    followRedirect: false,
    headers: { accept: 'application/json', 'user-agent': USER_AGENT },
    retry: {
      limit: options.retries ?? DEFAULT_RETRIES,
      // Only GETs are safe to repeat: a repeated create-session would make a second address, a
      // repeated delete could hit a message that arrived since. got skips POST already; this says so.
      methods: ['GET'],
      statusCodes: RETRY_STATUS,
      errorCodes: RETRY_CODES,
      maxRetryAfter: MAX_RETRY_AFTER_MS,
      enforceRetryRules: true,
      calculateDelay: ({ attemptCount, retryAfter, computedValue }: RetryObject) => {
        if (retryAfter !== undefined) return computedValue;
        const exp = Math.min(baseDelay * 2 ** (attemptCount - 1), 30_000);
        return exp + Math.random() * baseDelay * 0.25;
      },
    },
    hooks: {
      beforeError: [(error: RequestError) => errorFromRequest(error, secretList(), timeoutMs)],
      // Runs before got turns a 4xx or 5xx into an error.
      afterResponse: options.onHeaders
        ? [
            (response: Response) => {
              options.onHeaders?.(response.headers);
              return response;
            },
          ]
        : [],
    },
  };
}

/** Creates the shared client for `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = checkBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  // The token of the request in flight is not known to the hook; every token this client has seen is,
  // up to MAX_SECRETS of them, the newest kept (a request's own are renewed as it starts).
  const known = new Set<string>();
  const secretList = () => [...known];
  const keep = (secret: string) => keepNewest(known, secret, MAX_SECRETS);

  let instance: Promise<Got> | undefined;
  const http = (): Promise<Got> => {
    instance ??= loadGot().then(({ default: got }) => got.extend(gotOptions(base, options, secretList)));
    const made = instance;
    made.catch(() => {
      if (instance === made) instance = undefined;
    });
    return made;
  };
  /** The got instance; the code not loading (files replaced under a running app) is a network error. */
  async function ready(secretsNow: readonly string[]): Promise<Got> {
    try {
      return await http();
    } catch (error: unknown) {
      throw toApiError(error, secretsNow, timeoutMs, maxBytes);
    }
  }

  function remember(request: HttpRequest): readonly string[] {
    for (const secret of request.secrets ?? []) if (secret) keep(secret);
    return secretList();
  }

  /**
   * `conditional`: the request carried If-None-Match, so 304 (unchanged) is an answer, not an error.
   * `abort` ends the request when its answer outgrows maxBytes (got 16 cancels through an AbortSignal).
   */
  async function send<T>(
    pending: RequestPromise<Response<T>>,
    abort: AbortController,
    secretsNow: readonly string[],
    conditional = false,
  ): Promise<HttpAnswer<T>> {
    pending.on('downloadProgress', (progress: { transferred: number }) => {
      if (progress.transferred > maxBytes) abort.abort(OVERSIZE);
    });
    let answer: HttpAnswer<T>;
    try {
      const response = await pending;
      answer = { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (error: unknown) {
      if (options.signal?.aborted) {
        const reason: unknown = options.signal.reason;
        throw isApiError(reason) ? reason : cancelled();
      }
      throw toApiError(abort.signal.aborted ? OVERSIZE : error, secretsNow, timeoutMs, maxBytes);
    }
    if (answer.status >= 300 && !(answer.status === 304 && conditional)) {
      // Only reachable for 3xx (followRedirect is off); got throws for 4xx and 5xx.
      throw errorFromRedirect(answer.status);
    }
    return answer;
  }

  const paced = <T>(attempt: () => Promise<T>): Promise<T> =>
    pacedCall(attempt, options.pacer, options.rateLimitWait, options.signal);
  // A request ends when its answer outgrows the cap (`own`) or when the client's caller is done.
  const ends = (own: AbortSignal): AbortSignal => (options.signal ? AbortSignal.any([own, options.signal]) : own);

  return {
    baseUrl: base,
    request(method, path, request = {}) {
      return paced(() => sendRequest(method, path, request));
    },
    requestBuffer(path, request = {}) {
      return paced(() => sendBuffer(path, request));
    },
    async stream(path, request = {}) {
      const secretsNow = remember(request);
      return openStream(await ready(secretsNow), path, request, secretsNow, timeoutMs, options.signal);
    },
    addSecret(secret) {
      if (secret) keep(secret);
    },
    secrets: secretList,
  };

  async function sendRequest(method: HttpMethod, path: string, request: HttpRequest): Promise<HttpAnswer<string>> {
    const secretsNow = remember(request);
    const client = await ready(secretsNow);
    const abort = new AbortController();
    const pending = client(path, {
      method,
      signal: ends(abort.signal),
      searchParams: request.searchParams,
      form: request.form,
      json: request.json,
      headers: request.headers,
      responseType: 'text',
    });
    const conditional = Object.keys(request.headers ?? {}).some((h) => h.toLowerCase() === 'if-none-match');
    const answer = await send<string>(pending as RequestPromise<Response<string>>, abort, secretsNow, conditional);
    return { ...answer, body: typeof answer.body === 'string' ? answer.body : '' };
  }

  async function sendBuffer(path: string, request: HttpRequest): Promise<HttpAnswer<Buffer>> {
    const secretsNow = remember(request);
    const client = await ready(secretsNow);
    const abort = new AbortController();
    const pending = client.get(path, {
      searchParams: request.searchParams,
      headers: request.headers,
      responseType: 'buffer',
      signal: ends(abort.signal),
    });
    const answer = await send<Uint8Array>(pending, abort, secretsNow);
    // got 16 gives a Uint8Array; callers write it to files and decode it as a Buffer.
    return { ...answer, body: Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength) };
  }
}
