/**
 * The `guerrilla` provider: the Guerrilla Mail JSON API (GuerrillaMailAPI.html): one URL, `ajax.php`,
 * a function name in `f`, and a session token, `sid_token`, that may change with any answer. An inbox
 * belongs to a name, not to a session: a session that went stale (about 18 minutes idle) is linked to
 * the address again with `set_email_user`, which is how an address is reopened after a restart too.
 * Every new inbox holds a welcome message from Guerrilla Mail, left out of listings here. Addresses are
 * given 60 minutes, Guerrilla Mail's own lifetime for mail. Wire mapping only, on the shared HTTP client.
 */
import type { MailProvider, ProviderInfo, PublicProviderOptions } from '../client-types';
import type { CreateSessionOptions, DomainList, Session } from '../../model/mail-types';
import { ApiError } from '../api-error';
import { createHttpClient, type HttpClient } from '../http/http-client';
import { startMessageListing, withCut, type MessageList } from '../wire/listing';
import { USER_AGENT } from '../http/user-agent';
import { serviceText } from '../http/redact';
import { badResponse, isObject, parseJson } from '../wire/wire-json';
import { isWelcome, parseAddress, parseList, parseMessage, parseSummary, sidOf } from './guerrilla-parse';

export const GUERRILLA_INFO: ProviderInfo = {
  id: 'guerrilla',
  label: 'Guerrilla Mail',
  defaultBaseUrl: 'https://api.guerrillamail.com/',
  offline: false,
  note: 'public: any website can mail it; anyone who types the same name reads the same inbox; 60 minutes',
  limits: {
    lifetimeMinutes: 60,
    requestsPerSecond: null,
    customNames: true,
    publicInbox: true,
    numericIds: true,
    names: { min: 1, max: 64, pattern: /^[a-z0-9._+-]+$/, chars: 'a-z, 0-9, ".", "_", "+" and "-"' },
  },
  deleteAddress: 'end the Guerrilla Mail session (forget_me; mail to the name still arrives for whoever asks for it)',
};

/**
 * The domains Guerrilla Mail receives for. Fixed: the API has no call that lists them. Every one of them
 * delivers a name's mail to the same inbox, so the domain only changes how the address reads.
 */
export const GUERRILLA_DOMAINS = [
  'guerrillamail.com',
  'guerrillamailblock.com',
  'sharklasers.com',
  'guerrillamail.net',
  'guerrillamail.org',
  'guerrillamail.biz',
  'spam4.me',
  'grr.la',
  'guerrillamail.de',
  'pokemail.net',
] as const;

const LIFETIME_MS = 60 * 60_000;
// A session idle for ~18 minutes is dropped by the service; linking again after 5 stays well inside it.
const LINK_TTL_MS = 5 * 60_000;
// get_email_list answers a page at a time from `offset` (the documentation says both 10 and "a maximum
// of 20"): pages are read until `count` messages are in or a page comes back empty.
const MAX_PAGES = 100;
// The documentation asks every call to say the user's ip and agent; a terminal client has no other user.
const IDENTITY = { ip: '127.0.0.1', agent: USER_AGENT, lang: 'en' };
// A local part Guerrilla Mail accepts; anything else is refused before it is sent.
const NAME_SHAPE = /^[a-z0-9._+-]{1,64}$/;

export type GuerrillaOptions = PublicProviderOptions & {
  /** Clock for the 60-minute lifetime and for relinking (tests). */
  now?: () => number;
};

/** Where attachments are served: www.guerrillamail.com for the public API's host, the base itself otherwise. */
export function attachmentBase(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.hostname === 'api.guerrillamail.com') return 'https://www.guerrillamail.com/';
  return url.href;
}

const localPart = (email: string) => email.slice(0, Math.max(0, email.lastIndexOf('@'))).toLowerCase();

type Params = Record<string, string | number>;

/** One call; its JSON and the size of its answer. */
async function sized(
  http: HttpClient,
  f: string,
  params: Params,
  method: 'GET' | 'POST' = 'GET',
  secrets: string[] = [],
): Promise<{ data: unknown; bytes: number }> {
  const query = method === 'GET' ? { f, ...IDENTITY, ...params } : { f, ...IDENTITY };
  const answer = await http.request(method, 'ajax.php', {
    searchParams: query,
    ...(method === 'POST' ? { form: params } : {}),
    secrets,
  });
  const data = parseJson(answer.body);
  if (data === undefined) throw badResponse(answer.body.trim() ? 'not JSON' : 'empty body');
  // A function it cannot serve is answered 200 with {error: "..."}: said in its own words.
  if (
    isObject(data) &&
    typeof data.error === 'string' &&
    data.error.trim() &&
    data.email_addr === undefined &&
    data.list === undefined
  ) {
    throw new ApiError('service', `Guerrilla Mail said: ${serviceText(data.error, http.secrets(), 120)}`);
  }
  return { data, bytes: Buffer.byteLength(answer.body) };
}

function checkLive(now: () => number, session: Session): void {
  if (session.expiresAt !== null && session.expiresAt.getTime() <= now()) {
    throw new ApiError('session_expired', 'This Guerrilla Mail address has expired (60 minutes)');
  }
}

function checkMessageId(id: string): string {
  if (!/^\d{1,15}$/.test(id)) throw new ApiError('bad_request', 'That is not a message id');
  return id;
}

/** The domain a new address asks for (one of the fixed ones), its custom name checked. */
export function checkCreateOptions(opts: CreateSessionOptions): string {
  const domain = opts.domain ?? GUERRILLA_DOMAINS[(opts.domainId ?? 1) - 1];
  if (!domain || !(GUERRILLA_DOMAINS as readonly string[]).includes(domain))
    throw new ApiError('bad_request', 'Guerrilla Mail has no such domain');
  if (opts.prefix !== undefined && !NAME_SHAPE.test(opts.prefix.toLowerCase())) {
    throw new ApiError('bad_request', 'A Guerrilla Mail name is 1-64 of a-z 0-9 . _ + -');
  }
  return domain;
}

/** A new session of the service, renamed to `prefix` when one is asked for. */
async function newAddress(http: HttpClient, prefix: string | undefined): Promise<ReturnType<typeof parseAddress>> {
  let address = parseAddress((await sized(http, 'get_email_address', {})).data);
  http.addSecret(address.sid);
  if (prefix !== undefined) {
    const { data } = await sized(
      http,
      'set_email_user',
      { email_user: prefix.toLowerCase(), sid_token: address.sid },
      'POST',
      [address.sid],
    );
    // A name it will not give is answered with the old address and its reason in `alias_error`.
    const refused =
      isObject(data) && typeof data.alias_error === 'string' ? serviceText(data.alias_error, http.secrets(), 120) : '';
    if (refused)
      throw new ApiError('bad_request', `Guerrilla Mail refused the name ${prefix.toLowerCase()}: ${refused}`);
    address = parseAddress(data);
    http.addSecret(address.sid);
  }
  return address;
}

/**
 * The session token each address last got, and when it was last linked to the address: the service
 * forgets idle sessions, so an address is linked again by name (set_email_user) when it may have.
 */
export interface SessionLinks {
  /** Keeps the sid an answer carries (`linked`: the address was just linked with it). */
  remember(session: Session, data: unknown, linked?: boolean): void;
  /** A session token linked to the address: set_email_user with its name, unless done in the last minutes. */
  linked(session: Session, force?: boolean): Promise<string>;
  /** A new address, linked now with its own sid. */
  created(session: Session, sid: string): void;
  forget(session: Session): void;
}

/** The sids of the addresses one provider serves (SessionLinks). */
export function sessionLinks(http: HttpClient, now: () => number): SessionLinks {
  const sids = new Map<string, { sid: string; linkedAt: number }>();
  const keyOf = (s: Session) => s.email.toLowerCase();
  const links: SessionLinks = {
    remember(session, data, linked = false) {
      const sid = sidOf(data);
      const old = sids.get(keyOf(session));
      if (sid) http.addSecret(sid);
      if (sid || linked)
        sids.set(keyOf(session), {
          sid: sid ?? old?.sid ?? session.token,
          linkedAt: linked ? now() : (old?.linkedAt ?? 0),
        });
    },
    async linked(session, force = false) {
      checkLive(now, session);
      http.addSecret(session.token);
      const entry = sids.get(keyOf(session));
      if (entry && !force && now() - entry.linkedAt < LINK_TTL_MS) return entry.sid;
      const name = localPart(session.email);
      if (!NAME_SHAPE.test(name)) throw new ApiError('bad_request', 'That is not a Guerrilla Mail address');
      const sid = entry?.sid ?? session.token;
      const { data } = await sized(http, 'set_email_user', { email_user: name, sid_token: sid }, 'POST', [sid]);
      const answered = parseAddress(data);
      if (localPart(answered.email) !== name) throw badResponse('Guerrilla Mail linked another address');
      links.remember(session, data, true);
      return answered.sid;
    },
    created(session, sid) {
      sids.set(keyOf(session), { sid, linkedAt: now() });
    },
    forget(session) {
      sids.delete(keyOf(session));
    },
  };
  return links;
}

/** One page of the inbox at `offset`; a session that went stale (another address listed) is linked again, once. */
async function listPage(
  http: HttpClient,
  links: SessionLinks,
  session: Session,
  offset: number,
): Promise<ReturnType<typeof parseList> & { bytes: number }> {
  for (let attempt = 0; ; attempt++) {
    const sid = await links.linked(session, attempt > 0);
    const { data, bytes } = await sized(http, 'get_email_list', { offset, sid_token: sid }, 'GET', [sid]);
    links.remember(session, data);
    const list = { ...parseList(data), bytes };
    // The session went stale and the service answered for a new, other address: link again, once.
    if (list.email && localPart(list.email) !== localPart(session.email) && attempt === 0) continue;
    if (list.email && localPart(list.email) !== localPart(session.email))
      throw badResponse('Guerrilla Mail listed another address');
    return list;
  }
}

/** Every page until the listing's count (or its bounds), newest first, without the welcome mail. */
async function listAll(
  http: HttpClient,
  links: SessionLinks,
  session: Session,
  limits: GuerrillaOptions['listingLimits'],
): Promise<MessageList> {
  const listing = startMessageListing({ maxPages: MAX_PAGES, ...limits });
  let offset = 0;
  for (;;) {
    const { entries, count, bytes } = await listPage(http, links, session, offset);
    listing.page(bytes, entries, parseSummary);
    offset += entries.length;
    // Without a count, one page is all there is to know.
    if (entries.length === 0 || count === undefined || offset >= count || !listing.more()) break;
  }
  const { items, cut } = listing.finish();
  const mail = items
    .filter((m) => !isWelcome(m))
    .sort((a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0) || Number(b.id) - Number(a.id));
  return withCut(mail, cut);
}

/** The Guerrilla Mail provider at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createGuerrillaProvider(options: GuerrillaOptions): MailProvider {
  const http = createHttpClient(options);
  const now = options.now ?? Date.now;
  let files: HttpClient | undefined;
  const links = sessionLinks(http, now);
  const { linked, remember } = links;

  const call = async (
    f: string,
    params: Params,
    method: 'GET' | 'POST' = 'GET',
    secrets: string[] = [],
  ): Promise<unknown> => (await sized(http, f, params, method, secrets)).data;

  return {
    info: GUERRILLA_INFO,
    baseUrl: http.baseUrl,
    // The API lists no domains; its cheapest call is a new session (an address nobody uses, gone in an hour).
    async probe() {
      parseAddress(await call('get_email_address', {}));
    },
    async listDomains(): Promise<DomainList> {
      return { domains: GUERRILLA_DOMAINS.map((domain, i) => ({ id: i + 1, domain })), extmailAccounts: [] };
    },
    async createSession(opts = {}) {
      const domain = checkCreateOptions(opts);
      const address = await newAddress(http, opts.prefix);
      const created = address.createdAt?.getTime() ?? now();
      const session: Session = {
        email: `${localPart(address.email)}@${domain}`,
        token: address.sid,
        expiresAt: new Date(created + LIFETIME_MS),
      };
      links.created(session, address.sid);
      return session;
    },
    listMessages: (session) => listAll(http, links, session, options.listingLimits),
    async readMessage(session, id) {
      const sid = await linked(session);
      const data = await call('fetch_email', { email_id: checkMessageId(id), sid_token: sid }, 'GET', [sid]);
      remember(session, data);
      const message = parseMessage(data);
      if (!message)
        throw new ApiError('not_found', 'Guerrilla Mail has no such message (deleted, or older than an hour)');
      return message;
    },
    async deleteMessage(session, id) {
      const sid = await linked(session);
      const data = await call('del_email', { 'email_ids[]': checkMessageId(id), sid_token: sid }, 'POST', [sid]);
      remember(session, data);
    },
    async downloadAttachment(session, messageId, attachment) {
      const sid = await linked(session);
      if (!/^[0-9.]{1,32}$/.test(attachment.id))
        throw new ApiError('bad_request', 'That is not an attachment of this message');
      files ??= createHttpClient({ ...options, baseUrl: attachmentBase(http.baseUrl) });
      const searchParams = {
        get_att: '',
        lang: 'en',
        email_id: checkMessageId(messageId),
        part_id: attachment.id,
        sid_token: sid,
      };
      return (await files.requestBuffer('inbox', { searchParams, secrets: [sid] })).body;
    },
    async deleteAddress(session) {
      const sid = await linked(session);
      await call('forget_me', { email_addr: session.email, sid_token: sid }, 'POST', [sid]);
      links.forget(session);
    },
  };
}
