/**
 * The `tempmail` provider: the temporary-email interface of docs/server/http-api.md (the reference
 * service, and public services that speak it). Wire mapping only: the shared HTTP client
 * (../http-client.ts) carries the timeout, retry, redirect and redaction rules, and every failure is an
 * ApiError with the token kept out of it.
 */
import type { CreateSessionOptions, DomainList, Message, MessageSource, Session } from '../../model/mail-types';
import type { MessageList } from '../wire/listing';
import { errorFromAnswer, errorFromNonJson } from '../http/error-map';
import { ApiError } from '../api-error';
import { createHttpClient, type HttpAnswer, type HttpClient, type HttpStream } from '../http/http-client';
import { Capabilities, CAPABILITIES_HEADER } from './capabilities';
import { badResponse, isObject, parseJson } from '../wire/wire-json';
import { parseDomainList, parseMessage, parseSession, parseSourceFields, parseSummaries } from './tempmail-parse';
import type { ApiOptions, PostEncoding, TempMailApi } from '../client-types';

type Params = Record<string, string | number>;

/** Where a call puts the token: parameters, or headers. */
interface Auth {
  params: Params;
  headers?: Record<string, string>;
}
const inHeader = (token: string): Auth => ({ params: {}, headers: { authorization: `Bearer ${token}` } });
const asParam = (token: string): Auth => ({ params: { token } });

/** How long an event stream waits for the service's first answer to say whether it offers one. */
const EVENTS_WAIT_MS = 15_000;

/** Inboxes whose last answer is kept for a conditional check (an app watches one, a script a few). */
const KEPT_INBOXES = 8;

/**
 * Sends a call that carries `token`: in an Authorization header where the service said it takes one,
 * as a parameter where it said nothing of it. Before it has said anything, in the header: a service
 * that did not see it there refuses (401, or 400 "token required"), and the call goes once more with
 * the token as a parameter (capabilities.ts).
 */
export async function carry<T>(
  capabilities: Capabilities,
  token: string,
  send: (auth: Auth) => Promise<T>,
): Promise<T> {
  const known = capabilities.get();
  if (known) return send(known.has('bearer') ? inHeader(token) : asParam(token));
  try {
    return await send(inHeader(token));
  } catch (error: unknown) {
    const status = error instanceof ApiError ? error.details.status : undefined;
    if ((status !== 401 && status !== 400) || capabilities.get()?.has('bearer')) throw error;
    return send(asParam(token));
  }
}

/** The data of a `success` answer; an error answer (HTTP 200 with {status:"error"} too) as its ApiError. */
export function dataOf(
  capabilities: Capabilities,
  http: HttpClient,
  answer: HttpAnswer<string>,
): Record<string, unknown> {
  capabilities.learn(answer);
  const { status, headers, body } = answer;
  const data = parseJson(body);
  if (!isObject(data)) throw errorFromNonJson({ status, headers, body });
  // HTTP 200 with {status:"error"} is an error like any other.
  if (data.status !== 'success') {
    if (data.status === 'error' || data.error !== undefined) {
      throw errorFromAnswer({ status, headers, body }, http.secrets(), data);
    }
    throw badResponse('no success status');
  }
  return data;
}

/**
 * The last check-mail answer of each inbox with its ETag, by token: sent back as If-None-Match, so a
 * service that tags its answers (the reference service does) can say 304 and send no list at all. Only
 * the `max` inboxes answered last are kept.
 */
export class KeptListings {
  private readonly kept = new Map<string, { etag: string; summaries: MessageList }>();
  constructor(private readonly max = KEPT_INBOXES) {}

  get(token: string): { etag: string; summaries: MessageList } | undefined {
    return this.kept.get(token);
  }

  /** The answer just read: kept when it carries an ETag (the oldest inbox forgotten past the bound), else forgotten. */
  keep(token: string, etag: unknown, summaries: MessageList): void {
    this.kept.delete(token);
    if (typeof etag === 'string' && etag !== '') {
      this.kept.set(token, { etag, summaries });
      for (const oldest of this.kept.keys()) if (this.kept.size > this.max) this.kept.delete(oldest);
    }
  }

  get size(): number {
    return this.kept.size;
  }
}

/** The two ways the client asks: a JSON call (its token carried as the service takes it), and a GET of bytes. */
function requests(capabilities: Capabilities, http: HttpClient, encoding: PostEncoding) {
  async function call(
    method: 'GET' | 'POST',
    path: string,
    params: Params,
    token?: string,
  ): Promise<Record<string, unknown>> {
    const send = async (auth: Auth) => {
      const all = { ...params, ...auth.params };
      const sent =
        method === 'GET' || encoding === 'query'
          ? { searchParams: all }
          : encoding === 'json'
            ? { json: all }
            : { form: all };
      return dataOf(
        capabilities,
        http,
        await http.request(method, path, { ...sent, headers: auth.headers, secrets: token ? [token] : [] }),
      );
    };
    return token ? carry(capabilities, token, send) : send({ params: {} });
  }

  /** A GET of bytes with `token` (attachments, raw messages). */
  function bytes(path: string, token: string, params: Params): Promise<HttpAnswer<Buffer>> {
    return carry(capabilities, token, async (auth) => {
      const answer = await http.requestBuffer(path, {
        searchParams: { ...params, ...auth.params },
        headers: auth.headers,
        secrets: [token],
      });
      capabilities.learn(answer);
      return answer;
    });
  }
  return { call, bytes };
}

/** Creates the client for the service at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createApi(options: ApiOptions): TempMailApi {
  // What the service offers (capabilities.ts): a token goes in an Authorization header where it may.
  const capabilities = new Capabilities();
  const http = createHttpClient({
    ...options,
    // An error answer that names what the service offers says so too (the reference service names it on
    // every answer): a refused token is then not sent again in a URL. One that names nothing may be a
    // proxy's error page, and says nothing of the service behind it.
    onHeaders: (headers) => {
      if (headers[CAPABILITIES_HEADER] !== undefined) capabilities.learn({ headers });
    },
  });
  const encoding: PostEncoding = options.postEncoding ?? 'form';
  const offset = options.serverOffsetMinutes ?? 0;
  const kept = new KeptListings();
  const { call, bytes } = requests(capabilities, http, encoding);

  return {
    async listDomains(): Promise<DomainList> {
      const answer = await http.request('GET', 'domains', { searchParams: {} });
      return parseDomainList(dataOf(capabilities, http, answer), Buffer.byteLength(answer.body), options.listingLimits);
    },
    async createSession(opts: CreateSessionOptions = {}): Promise<Session> {
      const session = parseSession(await call('POST', 'create-session', sessionParams(opts, encoding)), offset);
      http.addSecret(session.token);
      return session;
    },
    async checkMail(token: string): Promise<MessageList> {
      const last = kept.get(token);
      const answer = await carry(capabilities, token, (auth) =>
        http.request('GET', 'check-mail', {
          searchParams: auth.params,
          secrets: [token],
          headers: { ...auth.headers, ...(last ? { 'if-none-match': last.etag } : {}) },
        }),
      );
      if (answer.status === 304 && last) return last.summaries;
      const summaries = parseSummaries(
        dataOf(capabilities, http, answer),
        offset,
        Buffer.byteLength(answer.body),
        options.listingLimits,
      );
      kept.keep(token, answer.headers.etag, summaries);
      return summaries;
    },
    async readMail(token: string, id: number | string): Promise<Message> {
      return parseMessage(await call('GET', 'read-mail', { id: checkId(id) }, token), offset);
    },
    async deleteMail(token: string, id: number | string): Promise<void> {
      await call('POST', 'delete-mail', { id: checkId(id) }, token);
    },
    async downloadAttachment(token: string, id: number | string, attachmentId: number | string): Promise<Buffer> {
      const params = { id: checkId(id), attachment_id: checkId(attachmentId) };
      try {
        return (await bytes('attachment', token, params)).body;
      } catch (error: unknown) {
        if (error instanceof ApiError && isMissingRoute(error)) {
          throw new ApiError('not_found', 'This service does not serve attachment bytes', error.details);
        }
        throw error;
      }
    },
    async readSource(token: string, id: number | string): Promise<MessageSource> {
      const params = { id: checkId(id) };
      try {
        return { kind: 'raw', bytes: (await bytes('raw-mail', token, params)).body };
      } catch (error: unknown) {
        if (!(error instanceof ApiError && isMissingRoute(error))) throw error;
      }
      // No raw route (the interface has none): the nearest thing is every field read-mail returns.
      return { kind: 'fields', fields: parseSourceFields(await call('GET', 'read-mail', params, token)) };
    },
    async openEvents(token: string): Promise<HttpStream | undefined> {
      // Known from the first answer (the inbox's first check, made at the same moment): a service that
      // does not offer the stream is never asked for it.
      const known = await capabilities.settled(EVENTS_WAIT_MS, options.signal).catch(() => {
        throw new ApiError('network', 'The service has not answered yet');
      });
      if (!known.has('events')) return undefined;
      const auth = known.has('bearer') ? inHeader(token) : asParam(token);
      return http.stream('events', {
        searchParams: auth.params,
        headers: { accept: 'text/event-stream', ...auth.headers },
        secrets: [token],
      });
    },
  };
}

/**
 * The attachment and raw-message routes are extensions of the reference service (the interface has none). A
 * 404 that does not name the message or the attachment (no error code, no message of the service's own,
 * or one about the route, as "No such route" or a framework's "Route GET:/attachment not found") means
 * the route itself is missing, which is what the user needs to hear.
 */
function isMissingRoute(error: ApiError): boolean {
  // A web server's own 404 page where the route would be says the same.
  if (error.kind === 'wrong_service' && error.details.status === 404) return true;
  return (
    error.kind === 'not_found' &&
    (error.details.code === undefined || /\broute\b|^Not found \(HTTP/i.test(error.message))
  );
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

// The interface's ids are integers; the project's are strings (other providers' are not numbers). Either is taken.
function checkId(id: number | string): number {
  const n = typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new ApiError('bad_request', 'That is not a message id');
  return n;
}
