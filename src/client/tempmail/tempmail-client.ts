/**
 * The client of SPEC.md: one got instance behind five plain functions that return the project's own,
 * terminal-safe types and fail only with ApiError. The token never reaches an error: got's errors are
 * replaced (in `beforeError`) by ApiErrors built from scratch.
 */
import got, { RequestError, type Got, type OptionsOfTextResponseBody, type RetryObject } from 'got';
import type { CreateSessionOptions, DomainList, Message, MessageSummary, Session } from '../../model/mail-types';
import { errorFromAnswer, errorFromRequest } from '../error-map';
import { ApiError } from '../api-error';
import { badResponse, isObject, parseDomainList, parseJson, parseMessage, parseSession, parseSummaries } from './tempmail-parse';
import type { ApiOptions, PostEncoding, TempMailApi } from '../client-types';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_BASE_MS = 500;
// A 503 asking us to come back later than this is surfaced (with retryAfterSeconds) instead of waited on.
const MAX_RETRY_AFTER_MS = 5_000;
// Bigger than any message the reference service accepts (10 MiB raw) once JSON-escaped; a service that
// streams more is broken or hostile and must not exhaust memory.
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
// 5xx worth another try; 429 is deliberately absent (the poller waits out Retry-After instead).
const RETRY_STATUS = [500, 502, 503, 504, 521, 522, 524];

type Params = Record<string, string | number>;

/** Creates the client for the service at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createApi(options: ApiOptions): TempMailApi {
  const base = checkBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const encoding: PostEncoding = options.postEncoding ?? 'form';
  const offset = options.serverOffsetMinutes ?? 0;
  const baseDelay = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  // The token of the request in flight is not known to the hook; every token this client has seen is.
  const secrets = new Set<string>();
  const secretList = () => [...secrets];

  const http: Got = got.extend({
    prefixUrl: base,
    timeout: { request: timeoutMs },
    responseType: 'text',
    // A redirect would carry the token (query string) to an address nobody configured.
    followRedirect: false,
    headers: { accept: 'application/json', 'user-agent': 'tempmail-tui' },
    retry: {
      limit: options.retries ?? DEFAULT_RETRIES,
      // Only GETs are safe to repeat: a repeated create-session would make a second address, a
      // repeated delete could hit a message that arrived since. got skips POST already; this says so.
      methods: ['GET'],
      statusCodes: RETRY_STATUS,
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
    },
  });

  async function call(method: 'GET' | 'POST', path: string, params: Params, token?: string): Promise<Record<string, unknown>> {
    if (token) secrets.add(token);
    const secretsNow = token ? [token, ...secrets] : secretList();
    const request: OptionsOfTextResponseBody = {};
    if (method === 'GET' || encoding === 'query') request.searchParams = params;
    else if (encoding === 'json') request.json = params;
    else request.form = params;
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let body: string;
    try {
      const pending = method === 'GET' ? http.get(path, request) : http.post(path, request);
      pending.on('downloadProgress', (progress: { transferred: number }) => {
        if (progress.transferred > maxBytes) pending.cancel();
      });
      const response = await pending;
      ({ statusCode: status, headers } = response);
      body = typeof response.body === 'string' ? response.body : '';
    } catch (error: unknown) {
      throw toApiError(error, secretsNow, timeoutMs, maxBytes);
    }
    if (status >= 300) {
      // Only reachable for 3xx (followRedirect is off); got throws for 4xx and 5xx.
      throw new ApiError('bad_response', `The service redirected (HTTP ${status}); check the base URL`, { status });
    }
    const data = parseJson(body);
    if (!isObject(data)) throw badResponse(body.trim() ? 'not JSON' : 'empty body');
    // HTTP 200 with {status:"error"} is an error like any other.
    if (data.status !== 'success') {
      if (data.status === 'error' || data.error !== undefined) {
        throw errorFromAnswer({ status, headers, body }, secretsNow, data);
      }
      throw badResponse('no success status');
    }
    return data;
  }

  return {
    async listDomains(): Promise<DomainList> {
      return parseDomainList(await call('GET', 'domains', {}));
    },
    async createSession(opts: CreateSessionOptions = {}): Promise<Session> {
      const session = parseSession(await call('POST', 'create-session', sessionParams(opts, encoding)), offset);
      secrets.add(session.token);
      return session;
    },
    async checkMail(token: string): Promise<MessageSummary[]> {
      return parseSummaries(await call('GET', 'check-mail', { token }, token), offset);
    },
    async readMail(token: string, id: number): Promise<Message> {
      return parseMessage(await call('GET', 'read-mail', { token, id: checkId(id) }, token), offset);
    },
    async deleteMail(token: string, id: number): Promise<void> {
      await call('POST', 'delete-mail', { token, id: checkId(id) }, token);
    },
    async downloadAttachment(token: string, id: number, attachmentId: number): Promise<Buffer> {
      secrets.add(token);
      const secretsNow = [token, ...secrets];
      const params = { token, id: checkId(id), attachment_id: checkId(attachmentId) };
      let status: number;
      let body: Buffer;
      try {
        const pending = http.get('attachment', { searchParams: params, responseType: 'buffer' });
        pending.on('downloadProgress', (progress: { transferred: number }) => {
          if (progress.transferred > maxBytes) pending.cancel();
        });
        const response = await pending;
        status = response.statusCode;
        body = response.body;
      } catch (error: unknown) {
        throw missingRoute(toApiError(error, secretsNow, timeoutMs, maxBytes));
      }
      if (status >= 300) {
        throw new ApiError('bad_response', `The service redirected (HTTP ${status}); check the base URL`, { status });
      }
      return body;
    },
  };
}

/**
 * The attachment route is an extension of the reference service (SPEC.md has none). A 404 that does
 * not name the message or the attachment (no error code, no message of the service's own, or one about
 * the route, as "No such route" or a framework's "Route GET:/attachment not found") means the route
 * itself is missing, which is what the user needs to hear.
 */
function missingRoute(error: ApiError): ApiError {
  if (error.kind !== 'not_found') return error;
  const generic = error.details.code === undefined || /\broute\b|^Not found \(HTTP/i.test(error.message);
  if (!generic) return error;
  return new ApiError('not_found', 'This service does not serve attachment bytes', error.details);
}

/** The wire parameters of create-session. Choosing an account (auto or by id) implies use_extmail=1. */
export function sessionParams(opts: CreateSessionOptions, encoding: PostEncoding = 'form'): Params {
  const params: Params = {};
  if (opts.prefix !== undefined && opts.prefix !== '') params.prefix = opts.prefix;
  if (opts.domainId !== undefined) params.domain_id = opts.domainId;
  if (opts.useExtmail || opts.extmailAuto || opts.extmailId !== undefined) params.use_extmail = 1;
  if (opts.extmailAuto) params.extmail_auto = 1;
  if (opts.extmailId !== undefined) params.extmail_id = opts.extmailId;
  // Forms and query strings carry text; JSON keeps numbers as numbers.
  if (encoding !== 'json') for (const key of Object.keys(params)) params[key] = String(params[key]);
  return params;
}

function checkId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 0) throw new ApiError('bad_request', 'That is not a message id');
  return id;
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ApiError('bad_request', 'The service address is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('bad_request', 'The service address must start with http:// or https://');
  }
  // Query and fragment would be mangled by prefixUrl; paths are kept, with one trailing slash.
  url.search = '';
  url.hash = '';
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

// Errors that did not go through beforeError: a cancelled oversized download, or a bug of ours.
function toApiError(error: unknown, secrets: readonly string[], timeoutMs: number, maxBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error && error.name === 'CancelError') {
    return badResponse(`answer larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
  }
  if (error instanceof RequestError) return errorFromRequest(error, secrets, timeoutMs);
  return new ApiError('network', 'The request failed');
}
