/**
 * The `tempmail` provider: SPEC.md's interface (the reference service, and public services that speak
 * it). Wire mapping only: the shared HTTP client (../http-client.ts) carries the timeout, retry,
 * redirect and redaction rules, and every failure is an ApiError with the token kept out of it.
 */
import type { CreateSessionOptions, DomainList, Message, MessageSummary, Session } from '../../model/mail-types';
import { errorFromAnswer } from '../error-map';
import { ApiError } from '../api-error';
import { createHttpClient } from '../http-client';
import { badResponse, isObject, parseJson } from '../wire-json';
import { parseDomainList, parseMessage, parseSession, parseSummaries } from './tempmail-parse';
import type { ApiOptions, PostEncoding, TempMailApi } from '../client-types';

type Params = Record<string, string | number>;

/** Creates the client for the service at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createApi(options: ApiOptions): TempMailApi {
  const http = createHttpClient(options);
  const encoding: PostEncoding = options.postEncoding ?? 'form';
  const offset = options.serverOffsetMinutes ?? 0;

  async function call(method: 'GET' | 'POST', path: string, params: Params, token?: string): Promise<Record<string, unknown>> {
    const secrets = token ? [token] : [];
    const sent =
      method === 'GET' || encoding === 'query' ? { searchParams: params } : encoding === 'json' ? { json: params } : { form: params };
    const { status, headers, body } = await http.request(method, path, { ...sent, secrets });
    const data = parseJson(body);
    if (!isObject(data)) throw badResponse(body.trim() ? 'not JSON' : 'empty body');
    // HTTP 200 with {status:"error"} is an error like any other.
    if (data.status !== 'success') {
      if (data.status === 'error' || data.error !== undefined) {
        throw errorFromAnswer({ status, headers, body }, http.secrets(), data);
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
      http.addSecret(session.token);
      return session;
    },
    async checkMail(token: string): Promise<MessageSummary[]> {
      return parseSummaries(await call('GET', 'check-mail', { token }, token), offset);
    },
    async readMail(token: string, id: number | string): Promise<Message> {
      return parseMessage(await call('GET', 'read-mail', { token, id: checkId(id) }, token), offset);
    },
    async deleteMail(token: string, id: number | string): Promise<void> {
      await call('POST', 'delete-mail', { token, id: checkId(id) }, token);
    },
    async downloadAttachment(token: string, id: number | string, attachmentId: number | string): Promise<Buffer> {
      const searchParams = { token, id: checkId(id), attachment_id: checkId(attachmentId) };
      try {
        return (await http.requestBuffer('attachment', { searchParams, secrets: [token] })).body;
      } catch (error: unknown) {
        throw error instanceof ApiError ? missingRoute(error) : error;
      }
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

// SPEC.md's ids are integers; the project's are strings (other providers' are not numbers). Either is taken.
function checkId(id: number | string): number {
  const n = typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new ApiError('bad_request', 'That is not a message id');
  return n;
}
