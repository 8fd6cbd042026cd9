/**
 * The `mailtm` provider: the mail.tm API (docs.mail.tm; mail.gw runs the same one). An address is an
 * account: address + a strong random password, kept with the session so a new token (JWT, POST /token)
 * can be fetched when a call answers 401. Wire mapping only, on the shared HTTP client; requests are
 * spaced to the documented 8 per second, and a 429 becomes a rate_limited ApiError with its Retry-After.
 */
import type { ApiOptions, MailProvider } from '../client-types';
import type { AttachmentInfo, CreateSessionOptions, Domain, DomainList, Session } from '../../model/mail-types';
import { ApiError, isApiError } from '../api-error';
import { asKind } from '../http/error-map';
import { createHttpClient, type HttpMethod } from '../http/http-client';
import { setNewest } from '../wire/keep-newest';
import { DOMAIN_LISTING, startListing, startMessageListing, withCut } from '../wire/listing';
import { createPacer } from '../pacing/pacer';
import { badResponse, parseJson } from '../wire/wire-json';
import { watchMailtm } from './mailtm-events';
import { MAILTM_INFO, mercureUrl } from './mailtm-info';
import { randomLocalPart, randomPassword } from './mailtm-names';
import { isResourceId, members, parseAccount, parseDomain, parseMessage, parseSummary, parseToken, totalItems } from './mailtm-parse';

export { MAILTM_INFO, mercureUrl };

/** mail.tm lists 30 messages a page. */
const PAGE_SIZE = 30;
// A runaway "next page" (a broken totalItems) must end: 50 pages is 1,500 messages (8 a second: 6 s).
const MAX_PAGES = 50;
const ACCEPT = 'application/ld+json, application/json;q=0.9';
// Download URLs remembered from messages read: a few messages' worth of attachments (1,000 at most each).
const MAX_DOWNLOAD_URLS = 4_096;
// A random name that is taken (unlikely) is drawn again, this many times in all.
const NAME_TRIES = 3;

export interface MailtmOptions extends Pick<ApiOptions, 'baseUrl' | 'timeoutMs' | 'retries' | 'retryBaseDelayMs' | 'maxResponseBytes' | 'listingLimits' | 'pacer' | 'rateLimitWait'> {
  /** Requests started per second when no `pacer` is given (default 8, the documented limit; 0: no spacing). */
  requestsPerSecond?: number;
  /** The new-mail event stream (default: mercure.<domain> for an api.<domain> base, else <base>.well-known/mercure). */
  eventsUrl?: string;
  /** Told of each token had by signing in again, so that the saved address keeps it (and the next run need not sign in). */
  onSignedIn?: (email: string, token: string) => void;
}

interface Call {
  token?: string;
  json?: unknown;
  searchParams?: Record<string, string | number>;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

/** The mail.tm provider at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createMailtmProvider(options: MailtmOptions): MailProvider {
  // Every request in its turn (the documented 8 a second), shared with the user's other processes when
  // the caller gives a shared pacer.
  const pacer = options.pacer ?? createPacer(options.requestsPerSecond ?? 8);
  const http = createHttpClient({ ...options, pacer });
  const base = new URL(http.baseUrl);
  // The token each address last got (a refused one is replaced), and the refresh in flight per address.
  const tokens = new Map<string, string>();
  const refreshing = new Map<string, Promise<string>>();
  // Attachment download URLs as the last reading of their message gave them: the newest MAX_DOWNLOAD_URLS
  // (one forgotten is asked for at its documented address, which is where mail.tm serves it too).
  const downloadUrls = new Map<string, string>();

  /** One request; its JSON (undefined for an empty body) and the size of its answer. */
  async function sized(method: HttpMethod, path: string, c: Call = {}): Promise<{ data: unknown; bytes: number }> {
    const headers: Record<string, string> = { accept: ACCEPT, ...c.headers };
    if (c.token !== undefined) headers.authorization = `Bearer ${c.token}`;
    const secrets = [...(c.token ? [c.token] : []), ...(c.secrets ?? [])];
    const answer = await http.request(method, path, { json: c.json, searchParams: c.searchParams, headers, secrets });
    const bytes = Buffer.byteLength(answer.body);
    if (!answer.body.trim()) return { data: undefined, bytes };
    const data = parseJson(answer.body);
    if (data === undefined) throw badResponse('not JSON');
    return { data, bytes };
  }
  const call = async (method: HttpMethod, path: string, c: Call = {}): Promise<unknown> => (await sized(method, path, c)).data;

  const keyOf = (s: Session) => s.email.toLowerCase();
  const tokenOf = (s: Session) => tokens.get(keyOf(s)) ?? s.token;

  /** A new token from the saved password; one request per address however many calls were refused. */
  function login(session: Session): Promise<string> {
    const key = keyOf(session);
    const password = session.password;
    if (!password) {
      return Promise.reject(new ApiError('invalid_token', 'mail.tm refused this address and no password is saved to sign in again'));
    }
    let pending = refreshing.get(key);
    if (!pending) {
      pending = (async () => {
        try {
          const { token } = parseToken(await call('POST', 'token', { json: { address: session.email, password }, secrets: [password] }));
          http.addSecret(token);
          tokens.set(key, token);
          try {
            options.onSignedIn?.(session.email, token);
          } catch {
            // Only saves a sign-in for later: this one has its token.
          }
          return token;
        } catch (error) {
          if (isApiError(error) && error.kind === 'invalid_token') {
            throw asKind(error, 'invalid_token', 'mail.tm no longer knows this account (deleted, or its password changed)');
          }
          throw error;
        } finally {
          refreshing.delete(key);
        }
      })();
      refreshing.set(key, pending);
    }
    return pending;
  }

  /**
   * Runs `fn` with the address's token; on 401, once more with a new one from its password. An address
   * saved before its first sign-in went through (no token) signs in first.
   */
  async function authed<T>(session: Session, fn: (token: string) => Promise<T>): Promise<T> {
    if (session.token) http.addSecret(session.token);
    if (session.password) http.addSecret(session.password);
    const token = tokenOf(session) || (await login(session));
    try {
      return await fn(token);
    } catch (error) {
      if (!(isApiError(error) && error.kind === 'invalid_token')) throw error;
      return fn(await login(session));
    }
  }

  // Every page of domains, as one listing under its bounds (a domain named twice is listed once).
  async function domains(): Promise<DomainList> {
    const listing = startListing<Domain | null>((d) => d?.domain ?? '', { maxPages: MAX_PAGES, ...DOMAIN_LISTING, ...options.listingLimits });
    let listed = 0;
    for (let page = 1; ; page++) {
      const { data, bytes } = await sized('GET', 'domains', { searchParams: { page } });
      const entries = members(data, 'domains');
      // Counted before inactive and private ones are left out: totalItems counts them too.
      listed += entries.length;
      listing.page(bytes, entries, parseDomain);
      const total = totalItems(data);
      if (entries.length === 0 || total === undefined || listed >= total || !listing.more()) break;
    }
    const usable = listing.finish().items.filter((d): d is Domain => d !== null);
    return { domains: usable.map((d, i) => ({ id: i + 1, domain: d.domain })), extmailAccounts: [] };
  }

  async function pickDomain(options: CreateSessionOptions): Promise<string> {
    if (options.domain) return options.domain;
    const { domains: list } = await domains();
    if (list.length === 0) throw new ApiError('service', 'mail.tm offers no domain for new addresses right now');
    if (options.domainId !== undefined) {
      const found = list.find((d) => d.id === options.domainId);
      if (!found) throw new ApiError('bad_request', 'mail.tm does not offer that domain');
      return found.domain;
    }
    return list[Math.floor(Math.random() * list.length)]!.domain;
  }

  // A path on this API for a URL mail.tm gave: "/messages/…" is taken relative to the base; an absolute
  // URL must lie under the base, so the token is never sent to another host.
  function apiPath(url: string): string {
    if (url.startsWith('/') && !url.startsWith('//')) return url.slice(1);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw badResponse('an attachment address that is not a URL');
    }
    if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
      throw new ApiError('bad_response', 'mail.tm named an attachment address on another host; it was not asked');
    }
    return `${target.pathname.slice(base.pathname.length)}${target.search}`;
  }

  const checkId = (id: string, what: string) => {
    if (!isResourceId(id)) throw new ApiError('bad_request', `That is not a ${what} id`);
    return encodeURIComponent(id);
  };

  async function accountId(session: Session): Promise<string> {
    if (session.accountId && isResourceId(session.accountId)) return session.accountId;
    return parseAccount(await authed(session, (token) => call('GET', 'me', { token }))).id;
  }

  const provider: MailProvider = {
    info: MAILTM_INFO,
    baseUrl: http.baseUrl,
    listDomains: domains,
    // The first page of domains: one request, and only mail.tm's API answers it with a collection.
    async probe() {
      members((await sized('GET', 'domains', { searchParams: { page: 1 } })).data, 'domains');
    },
    async createSession(options = {}, hooks = {}) {
      const domain = (await pickDomain(options)).toLowerCase();
      for (let attempt = 1; ; attempt++) {
        const local = options.prefix ? options.prefix.toLowerCase() : randomLocalPart();
        const password = randomPassword();
        http.addSecret(password);
        let account: { id: string; address: string };
        try {
          account = parseAccount(await call('POST', 'accounts', { json: { address: `${local}@${domain}`, password }, secrets: [password] }));
        } catch (error) {
          // 422 "address: This value is already used." is a taken name; any other 422 is the name's own fault.
          const refused = isApiError(error) && error.details.status === 422;
          const taken = refused && /already (used|exists|taken)/i.test(error.message);
          // Any other 422 is the name's own fault, in mail.tm's words (its violations per field).
          if (refused && !taken) throw asKind(error, 'bad_request', `mail.tm refused ${local}@${domain}: ${error.message}`);
          if (!taken) throw error;
          if (options.prefix) throw asKind(error, 'prefix_taken', 'That name is taken; try another');
          if (attempt >= NAME_TRIES) throw asKind(error, 'service', 'mail.tm refused every random name tried; try again');
          continue;
        }
        // The account exists now: kept (saved by the caller) before its sign-in, which may fail (a 429 past
        // the wait, the network), so that its password is never lost with it.
        hooks.keep?.({ email: account.address, token: '', expiresAt: null, password, accountId: account.id });
        const { token, accountId: id } = parseToken(
          await call('POST', 'token', { json: { address: account.address, password }, secrets: [password] }),
        );
        http.addSecret(token);
        tokens.set(account.address.toLowerCase(), token);
        return { email: account.address, token, expiresAt: null, password, accountId: id ?? account.id };
      }
    },
    async listMessages(session) {
      const listing = startMessageListing({ maxPages: MAX_PAGES, ...options.listingLimits });
      let listed = 0;
      for (let page = 1; ; page++) {
        const { data, bytes } = await authed(session, (token) => sized('GET', 'messages', { token, searchParams: { page } }));
        const entries = members(data, 'messages');
        // Mail arriving while the pages are read shifts them: a message may come twice (listed once).
        listing.page(bytes, entries, parseSummary);
        listed += entries.length;
        const total = totalItems(data);
        if (entries.length === 0 || (total !== undefined ? listed >= total : entries.length < PAGE_SIZE)) break;
        if (!listing.more()) break;
      }
      const { items, cut } = listing.finish();
      return withCut(items.sort((a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0)), cut);
    },
    async readMessage(session, id) {
      const path = `messages/${checkId(id, 'message')}`;
      const { message, downloads } = parseMessage(await authed(session, (token) => call('GET', path, { token })));
      for (const a of downloads) if (a.downloadUrl) setNewest(downloadUrls, `${message.id} ${a.id}`, a.downloadUrl, MAX_DOWNLOAD_URLS);
      return message;
    },
    async deleteMessage(session, id) {
      const path = `messages/${checkId(id, 'message')}`;
      await authed(session, (token) => call('DELETE', path, { token }));
    },
    async downloadAttachment(session, messageId, attachment: AttachmentInfo) {
      // The download URL the message gave; without one (a message not read in this run), the documented form.
      const given = downloadUrls.get(`${messageId} ${attachment.id}`);
      const path = given ? apiPath(given) : `messages/${checkId(messageId, 'message')}/attachment/${checkId(attachment.id, 'attachment')}`;
      const answer = await authed(session, (token) => http.requestBuffer(path, { headers: { authorization: `Bearer ${token}` }, secrets: [token] }));
      return answer.body;
    },
    // The message as mail.tm received it, byte for byte (its `downloadUrl`, documented with /sources/{id}).
    async readSource(session, id) {
      const path = `messages/${checkId(id, 'message')}/download`;
      const answer = await authed(session, (token) => http.requestBuffer(path, { headers: { authorization: `Bearer ${token}` }, secrets: [token] }));
      return { kind: 'raw', bytes: answer.body };
    },
    // Read state kept at mail.tm too, as its own web client does (a JSON merge patch of `seen`).
    async markRead(session, id) {
      const path = `messages/${checkId(id, 'message')}`;
      await authed(session, (token) => call('PATCH', path, { token, json: { seen: true }, headers: { 'content-type': 'application/merge-patch+json' } }));
    },
    async deleteAddress(session) {
      const id = await accountId(session);
      await authed(session, (token) => call('DELETE', `accounts/${encodeURIComponent(id)}`, { token }));
    },
    watchMail(session, events) {
      const events$ = createHttpClient({ ...options, pacer: undefined, baseUrl: new URL('.', options.eventsUrl ?? mercureUrl(http.baseUrl)).href });
      const path = new URL(options.eventsUrl ?? mercureUrl(http.baseUrl)).pathname.split('/').pop()!;
      return watchMailtm(
        {
          open: async () => {
            const id = await accountId(session);
            const token = tokenOf(session);
            return pacer.run(() =>
              events$.stream(path, {
                searchParams: { topic: `/accounts/${id}` },
                headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
                secrets: [token, ...(session.password ? [session.password] : [])],
              }),
            );
          },
          relogin: () => login(session),
        },
        events,
      );
    },
  };
  return provider;
}
