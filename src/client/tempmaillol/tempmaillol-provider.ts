/**
 * The `tempmaillol` provider: TempMail.lol's API v2 (its server wiki, "v2 API Endpoints", and the
 * official SDKs' README examples). Two calls: POST /v2/inbox/create (optional `prefix` and `domain`)
 * answers `{address, token}`, and GET /v2/inbox?token= answers `{emails, expired}`. No domain list
 * (TempMail.lol picks the domain), no message ids (made from each email: tempmaillol-parse.ts), no
 * deleting (an email goes with its inbox). Free inboxes last one hour. An optional API key (TempMail
 * Plus/Ultra) is sent as `Authorization: Bearer`. Some countries and networks are asked for a captcha
 * (403 captcha_required), which a terminal cannot solve: said in words, with "try another provider".
 */
import type { MailProvider, ProviderInfo, PublicProviderOptions } from '../client-types';
import type { DomainList, Message, Session } from '../../model/mail-types';
import { ApiError, isApiError } from '../api-error';
import { asKind } from '../http/error-map';
import { createHttpClient, type HttpAnswer } from '../http/http-client';
import { startMessageListing, withCut } from '../wire/listing';
import { badResponse, parseJson } from '../wire/wire-json';
import { emailId, parseCheck, parseEmail, parseInbox, parseSummary } from './tempmaillol-parse';

export const TEMPMAILLOL_INFO: ProviderInfo = {
  id: 'tempmaillol',
  label: 'TempMail.lol',
  defaultBaseUrl: 'https://api.tempmail.lol/',
  offline: false,
  note: 'public: any website can mail it; TempMail.lol picks the domain; one hour (longer with a paid API key)',
  limits: {
    lifetimeMinutes: 60,
    requestsPerSecond: null,
    customNames: true,
    publicInbox: false,
    numericIds: false,
    // Letters and digits: TempMail.lol adds characters of its own after the name on its public domains.
    names: { min: 1, max: 32, pattern: /^[a-z0-9]+$/, chars: 'a-z and 0-9' },
  },
};

/** Free inboxes last one hour (the wiki's table); a paid key's last longer, which the API does not say. */
const LIFETIME_MS = 60 * 60_000;
// The emails of one inbox read at most (it holds a few; a hostile one sends more).
const MAX_EMAILS = 1_000;

export type TempmaillolOptions = PublicProviderOptions & {
  /** TempMail Plus/Ultra API key (TEMPMAIL_TEMPMAILLOL_KEY, or the config file). Secret. */
  apiKey?: string;
  now?: () => number;
};

/** A 403 about a captcha or a country, in words; anything else about the key; a 402 about paid time. */
function refusal(error: unknown, withKey: boolean): unknown {
  if (!isApiError(error)) return error;
  const { status, code } = error.details;
  if (status === 403 && (/captcha/i.test(code ?? '') || /captcha|country|region/i.test(error.message) || !withKey)) {
    return asKind(
      error,
      'blocked',
      'TempMail.lol wants a captcha solved from this network (it asks some countries and networks), which a terminal cannot do: try another provider',
    );
  }
  if (status === 403)
    return asKind(
      error,
      'bad_request',
      'TempMail.lol refused the API key (403): check TEMPMAIL_TEMPMAILLOL_KEY or providers.tempmaillol.apiKey',
    );
  if (status === 402) return asKind(error, 'bad_request', 'TempMail.lol says the API key has no time left (402)');
  return error;
}

/** The TempMail.lol provider at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createTempmaillolProvider(options: TempmaillolOptions): MailProvider {
  const http = createHttpClient(options);
  const now = options.now ?? Date.now;
  const key = options.apiKey?.trim() || undefined;
  if (key) http.addSecret(key);
  const headers = (): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

  async function call(
    method: 'GET' | 'POST',
    path: string,
    request: { json?: unknown; searchParams?: Record<string, string>; secrets?: string[] },
  ) {
    let answer: HttpAnswer<string>;
    try {
      answer = await http.request(method, path, {
        ...request,
        headers: { ...headers(), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        secrets: [...(request.secrets ?? []), ...(key ? [key] : [])],
      });
    } catch (error) {
      throw refusal(error, key !== undefined);
    }
    const data = parseJson(answer.body);
    if (data === undefined) throw badResponse(answer.body.trim() ? 'not JSON' : 'empty body');
    return { data, bytes: Buffer.byteLength(answer.body) };
  }

  /** The inbox's emails as served (all of them: a caller bounds what it reads); an expired inbox is said as such. */
  async function check(session: Session): Promise<{ emails: unknown[]; bytes: number }> {
    http.addSecret(session.token);
    const { data, bytes } = await call('GET', 'v2/inbox', {
      searchParams: { token: session.token },
      secrets: [session.token],
    });
    const { expired, emails } = parseCheck(data);
    if (expired) {
      const early = session.expiresAt !== null && session.expiresAt.getTime() > now();
      throw new ApiError(
        early ? 'invalid_token' : 'session_expired',
        early ? 'TempMail.lol no longer knows this inbox' : 'This TempMail.lol inbox has expired (one hour)',
      );
    }
    return { emails, bytes };
  }

  return {
    info: TEMPMAILLOL_INFO,
    baseUrl: http.baseUrl,
    // A check of an inbox that does not exist: answered {emails, expired: true} by TempMail.lol, nothing made.
    async probe() {
      parseCheck((await call('GET', 'v2/inbox', { searchParams: { token: 'tempmail-tui-check' } })).data);
    },
    async listDomains(): Promise<DomainList> {
      return { domains: [], extmailAccounts: [], anyDomain: true };
    },
    async createSession(opts = {}) {
      const json: Record<string, string> = {};
      if (opts.prefix !== undefined) json.prefix = opts.prefix.toLowerCase();
      if (opts.domain !== undefined) json.domain = opts.domain.toLowerCase();
      const { address, token } = parseInbox((await call('POST', 'v2/inbox/create', { json })).data);
      http.addSecret(token);
      return { email: address, token, expiresAt: new Date(now() + LIFETIME_MS) };
    },
    async listMessages(session) {
      const { emails, bytes } = await check(session);
      // The listing's item bound is this provider's: what it leaves out is said (MessageList.cut).
      const listing = startMessageListing({ maxPages: 1, maxItems: MAX_EMAILS, ...options.listingLimits });
      listing.page(bytes, emails, parseSummary);
      const { items, cut } = listing.finish();
      return withCut(
        items.sort((a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0)),
        cut,
      );
    },
    async readMessage(session, id): Promise<Message> {
      const { emails } = await check(session);
      const found = emails
        .slice(0, MAX_EMAILS)
        .find((e) => typeof e === 'object' && e !== null && emailId(e as Record<string, unknown>) === id);
      if (!found) throw new ApiError('not_found', 'TempMail.lol no longer has that message');
      return parseEmail(found);
    },
    async deleteMessage() {
      throw new ApiError('bad_request', 'TempMail.lol cannot delete a message: it goes with the inbox, after an hour');
    },
    async downloadAttachment() {
      throw new ApiError('not_found', 'TempMail.lol serves no attachments');
    },
  };
}
