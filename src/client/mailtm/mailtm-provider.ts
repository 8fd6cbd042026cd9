/**
 * The `mailtm` provider: the mail.tm API (docs.mail.tm; mail.gw runs the same one). An address is an
 * account: address + a strong random password, kept with the session so a new token (JWT, POST /token)
 * can be fetched when a call answers 401. Wire mapping only, on the shared HTTP client; requests are
 * spaced to the documented 8 per second, and a 429 becomes a rate_limited ApiError with its Retry-After.
 */
import type { MailProvider } from '../client-types';
import type {
  AttachmentInfo,
  CreateSessionOptions,
  Domain,
  DomainList,
  Message,
  Session,
} from '../../model/mail-types';
import type { CreateHooks, MailWatchEvents } from '../client-types';
import { ApiError, isApiError } from '../api-error';
import { asKind } from '../http/error-map';
import { createHttpClient } from '../http/http-client';
import { setNewest } from '../wire/keep-newest';
import { DOMAIN_LISTING, type MessageList, startListing, startMessageListing, withCut } from '../wire/listing';
import { createPacer } from '../pacing/pacer';
import { badResponse } from '../wire/wire-json';
import { watchMailtm } from './mailtm-events';
import { MAILTM_INFO, mercureUrl } from './mailtm-info';
import { randomLocalPart, randomPassword } from './mailtm-names';
import {
  isResourceId,
  members,
  parseAccount,
  parseDomain,
  parseMessage,
  parseSummary,
  parseToken,
  totalItems,
} from './mailtm-parse';
import { authed, call, login, type MailtmContext, type MailtmOptions, sized, tokenOf } from './mailtm-wire';

export { MAILTM_INFO, mercureUrl };

/** mail.tm lists 30 messages a page. */
const PAGE_SIZE = 30;
// A runaway "next page" (a broken totalItems) must end: 50 pages is 1,500 messages (8 a second: 6 s).
const MAX_PAGES = 50;
// Download URLs remembered from messages read: a few messages' worth of attachments (1,000 at most each).
const MAX_DOWNLOAD_URLS = 4_096;
// A random name that is taken (unlikely) is drawn again, this many times in all.
const NAME_TRIES = 3;

export type { MailtmContext, MailtmOptions };

/** The mail.tm provider at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createMailtmProvider(options: MailtmOptions): MailProvider {
  // Every request in its turn (the documented 8 a second), shared with the user's other processes when
  // the caller gives a shared pacer.
  const pacer = options.pacer ?? createPacer(options.requestsPerSecond ?? 8);
  const http = createHttpClient({ ...options, pacer });
  const ctx: MailtmContext = {
    options,
    http,
    pacer,
    base: new URL(http.baseUrl),
    tokens: new Map(),
    refreshing: new Map(),
    downloadUrls: new Map(),
  };
  return {
    info: MAILTM_INFO,
    baseUrl: http.baseUrl,
    listDomains: () => listDomains(ctx),
    // The first page of domains: one request, and only mail.tm's API answers it with a collection.
    async probe() {
      members((await sized(ctx, 'GET', 'domains', { searchParams: { page: 1 } })).data, 'domains');
    },
    createSession: (createOptions = {}, hooks = {}) => createAccount(ctx, createOptions, hooks),
    listMessages: (session) => listMessages(ctx, session),
    readMessage: (session, id) => readMessage(ctx, session, id),
    async deleteMessage(session, id) {
      const path = `messages/${checkId(id, 'message')}`;
      await authed(ctx, session, (token) => call(ctx, 'DELETE', path, { token }));
    },
    downloadAttachment: (session, messageId, attachment) => downloadAttachment(ctx, session, messageId, attachment),
    // The message as mail.tm received it, byte for byte (its `downloadUrl`, documented with /sources/{id}).
    async readSource(session, id) {
      const path = `messages/${checkId(id, 'message')}/download`;
      const answer = await authed(ctx, session, (token) =>
        http.requestBuffer(path, { headers: { authorization: `Bearer ${token}` }, secrets: [token] }),
      );
      return { kind: 'raw', bytes: answer.body };
    },
    // Read state kept at mail.tm too, as its own web client does (a JSON merge patch of `seen`).
    async markRead(session, id) {
      const path = `messages/${checkId(id, 'message')}`;
      await authed(ctx, session, (token) =>
        call(ctx, 'PATCH', path, {
          token,
          json: { seen: true },
          headers: { 'content-type': 'application/merge-patch+json' },
        }),
      );
    },
    async deleteAddress(session) {
      const id = await accountId(ctx, session);
      await authed(ctx, session, (token) => call(ctx, 'DELETE', `accounts/${encodeURIComponent(id)}`, { token }));
    },
    watchMail: (session, events) => watchMail(ctx, session, events),
  };
}

/** Every page of domains, as one listing under its bounds (a domain named twice is listed once). */
export async function listDomains(ctx: MailtmContext): Promise<DomainList> {
  const listing = startListing<Domain | null>((d) => d?.domain ?? '', {
    maxPages: MAX_PAGES,
    ...DOMAIN_LISTING,
    ...ctx.options.listingLimits,
  });
  let listed = 0;
  for (let page = 1; ; page++) {
    const { data, bytes } = await sized(ctx, 'GET', 'domains', { searchParams: { page } });
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

async function pickDomain(ctx: MailtmContext, options: CreateSessionOptions): Promise<string> {
  if (options.domain) return options.domain;
  const { domains: list } = await listDomains(ctx);
  if (list.length === 0) throw new ApiError('service', 'mail.tm offers no domain for new addresses right now');
  if (options.domainId !== undefined) {
    const found = list.find((d) => d.id === options.domainId);
    if (!found) throw new ApiError('bad_request', 'mail.tm does not offer that domain');
    return found.domain;
  }
  return list[Math.floor(Math.random() * list.length)]!.domain;
}

/**
 * A path on this API for a URL mail.tm gave: "/messages/…" is taken relative to the base; an absolute
 * URL must lie under the base, so the token is never sent to another host.
 */
export function apiPath(base: URL, url: string): string {
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

function checkId(id: string, what: string): string {
  if (!isResourceId(id)) throw new ApiError('bad_request', `That is not a ${what} id`);
  return encodeURIComponent(id);
}

async function accountId(ctx: MailtmContext, session: Session): Promise<string> {
  if (session.accountId && isResourceId(session.accountId)) return session.accountId;
  return parseAccount(await authed(ctx, session, (token) => call(ctx, 'GET', 'me', { token }))).id;
}

/** A new account (a random name drawn again when taken), kept through `hooks.keep` before its sign-in. */
export async function createAccount(
  ctx: MailtmContext,
  options: CreateSessionOptions,
  hooks: CreateHooks,
): Promise<Session> {
  const domain = (await pickDomain(ctx, options)).toLowerCase();
  for (let attempt = 1; ; attempt++) {
    const local = options.prefix ? options.prefix.toLowerCase() : randomLocalPart();
    const password = randomPassword();
    ctx.http.addSecret(password);
    let account: { id: string; address: string };
    try {
      account = parseAccount(
        await call(ctx, 'POST', 'accounts', { json: { address: `${local}@${domain}`, password }, secrets: [password] }),
      );
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
      await call(ctx, 'POST', 'token', { json: { address: account.address, password }, secrets: [password] }),
    );
    ctx.http.addSecret(token);
    ctx.tokens.set(account.address.toLowerCase(), token);
    return { email: account.address, token, expiresAt: null, password, accountId: id ?? account.id };
  }
}

/** Every page of the inbox, newest first, under the listing's bounds. */
export async function listMessages(ctx: MailtmContext, session: Session): Promise<MessageList> {
  const listing = startMessageListing({ maxPages: MAX_PAGES, ...ctx.options.listingLimits });
  let listed = 0;
  for (let page = 1; ; page++) {
    const { data, bytes } = await authed(ctx, session, (token) =>
      sized(ctx, 'GET', 'messages', { token, searchParams: { page } }),
    );
    const entries = members(data, 'messages');
    // Mail arriving while the pages are read shifts them: a message may come twice (listed once).
    listing.page(bytes, entries, parseSummary);
    listed += entries.length;
    const total = totalItems(data);
    if (entries.length === 0 || (total !== undefined ? listed >= total : entries.length < PAGE_SIZE)) break;
    if (!listing.more()) break;
  }
  const { items, cut } = listing.finish();
  return withCut(
    items.sort((a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0)),
    cut,
  );
}

/** One message; its attachments' download URLs are remembered for `downloadAttachment`. */
async function readMessage(ctx: MailtmContext, session: Session, id: string): Promise<Message> {
  const path = `messages/${checkId(id, 'message')}`;
  const { message, downloads } = parseMessage(await authed(ctx, session, (token) => call(ctx, 'GET', path, { token })));
  for (const a of downloads)
    if (a.downloadUrl) setNewest(ctx.downloadUrls, `${message.id} ${a.id}`, a.downloadUrl, MAX_DOWNLOAD_URLS);
  return message;
}

/** An attachment at the download URL its message gave; without one (a message not read in this run), the documented form. */
async function downloadAttachment(
  ctx: MailtmContext,
  session: Session,
  messageId: string,
  attachment: AttachmentInfo,
): Promise<Buffer> {
  const given = ctx.downloadUrls.get(`${messageId} ${attachment.id}`);
  const path = given
    ? apiPath(ctx.base, given)
    : `messages/${checkId(messageId, 'message')}/attachment/${checkId(attachment.id, 'attachment')}`;
  const answer = await authed(ctx, session, (token) =>
    ctx.http.requestBuffer(path, { headers: { authorization: `Bearer ${token}` }, secrets: [token] }),
  );
  return answer.body;
}

/** New mail pushed over the Mercure hub, the stream opened in the pacer's turn. */
function watchMail(ctx: MailtmContext, session: Session, events: MailWatchEvents) {
  const { options, http } = ctx;
  const events$ = createHttpClient({
    ...options,
    pacer: undefined,
    baseUrl: new URL('.', options.eventsUrl ?? mercureUrl(http.baseUrl)).href,
  });
  const path = new URL(options.eventsUrl ?? mercureUrl(http.baseUrl)).pathname.split('/').pop()!;
  return watchMailtm(
    {
      open: async () => {
        const id = await accountId(ctx, session);
        const token = tokenOf(ctx, session);
        return ctx.pacer.run(() =>
          events$.stream(path, {
            searchParams: { topic: `/accounts/${id}` },
            headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
            secrets: [token, ...(session.password ? [session.password] : [])],
          }),
        );
      },
      relogin: () => login(ctx, session),
    },
    events,
  );
}
