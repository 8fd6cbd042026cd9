/**
 * Tolerant parsing of the service's answers into the project's own types. Accepts the reference shapes
 * and the public service's (docs/server/http-api.md): `message` wrapper or a flat record, `body_text`
 * null, `sender_email` absent, `sender_name` empty, ids as numeric strings. Unknown fields are ignored
 * and malformed optional fields fall back to empty; a missing required field is an
 * ApiError('bad_response'), never a crash.
 * Every string passes through the terminal-safe boundary here, as it enters our types.
 */
import { safeBlock, safeLine } from '../../text/safe-text';
import type {
  AttachmentInfo,
  Domain,
  DomainList,
  ExtmailAccount,
  Message,
  MessageSummary,
  Session,
} from '../../model/mail-types';
import {
  DOMAIN_LISTING,
  startListing,
  startMessageListing,
  withCut,
  type ListingLimits,
  type MessageList,
} from '../wire/listing';
import {
  addressList,
  badResponse,
  MAX_ATTACHMENTS,
  body,
  isObject,
  line,
  requireId,
  requireLine,
  time,
  toId,
  type Obj,
} from '../wire/wire-json';

/**
 * GET /domains -> the domains and external-mail accounts. `domains` is required, accounts optional; an
 * entry that is not one is left out (not the whole list), and each list is bounded (DOMAIN_LISTING).
 */
export function parseDomainList(data: Obj, bytes = 0, limits?: Partial<ListingLimits>): DomainList {
  if (!Array.isArray(data.domains)) throw badResponse('no list of domains');
  const domains = startListing<Domain>((d) => String(d.id), { ...DOMAIN_LISTING, ...limits });
  domains.page(bytes, data.domains, (d) => {
    if (!isObject(d)) throw badResponse('a domain is not a record');
    return { id: requireId(d.id, 'a domain'), domain: requireLine(d.domain, 'domain name', 255) };
  });
  const accounts = startListing<ExtmailAccount>((a) => String(a.id), { ...DOMAIN_LISTING, ...limits });
  accounts.page(0, Array.isArray(data.extmail_accounts) ? data.extmail_accounts : [], (a) => {
    if (!isObject(a)) throw badResponse('an external mail account is not a record');
    return { id: requireId(a.id, 'an external mail account'), email: requireLine(a.email, 'account address', 512) };
  });
  return { domains: domains.finish().items, extmailAccounts: accounts.finish().items };
}

// The token travels back in URLs and bodies, so it is validated rather than rewritten: a "token" with
// spaces or controls in it is not one we will send anywhere.
const TOKEN_SHAPE = /^[\x21-\x7e]{1,1024}$/;

/** POST /create-session -> the session. email, token and expires_at are required. */
export function parseSession(data: Obj, offsetMinutes: number): Session {
  const email = requireLine(data.email, 'address', 512);
  if (typeof data.token !== 'string' || !TOKEN_SHAPE.test(data.token)) throw badResponse('no valid session token');
  const expiresAt = time(data.expires_at, offsetMinutes);
  if (!expiresAt) throw badResponse('no valid expiry time');
  return { email, token: data.token, expiresAt };
}

function summary(record: Obj, offsetMinutes: number): MessageSummary {
  return {
    id: String(requireId(record.id, 'a message')),
    senderName: line(record.sender_name, 256).trim(),
    senderEmail: line(record.sender_email, 512).trim(),
    subject: line(record.subject),
    receivedAt: time(record.received_at, offsetMinutes),
    // An extension of the reference service (and mail.tm's hasAttachments): absent when not said.
    ...(typeof record.has_attachments === 'boolean' ? { hasAttachments: record.has_attachments } : {}),
  };
}

/**
 * GET /check-mail -> the message list: `messages` must be a list; an entry that is not a record with an
 * id is dropped and counted, and the list is bounded as a whole (listing.ts). `bytes`: the answer's size.
 */
export function parseSummaries(
  data: Obj,
  offsetMinutes: number,
  bytes = 0,
  limits?: Partial<ListingLimits>,
): MessageList {
  if (!Array.isArray(data.messages)) throw badResponse('no list of messages');
  const listing = startMessageListing(limits);
  listing.page(bytes, data.messages, (m) => {
    if (!isObject(m)) throw badResponse('a message is not a record');
    return summary(m, offsetMinutes);
  });
  // One answer is the whole listing: a service with more than the bound says so by sending it.
  const { items, cut } = listing.finish();
  return withCut(items, cut);
}

// Attachments are our extension: a malformed entry is skipped rather than failing the whole message.
function attachments(value: unknown): AttachmentInfo[] {
  if (!Array.isArray(value)) return [];
  const out: AttachmentInfo[] = [];
  for (const a of value) {
    if (out.length >= MAX_ATTACHMENTS) break;
    if (!isObject(a)) continue;
    const id = toId(a.id);
    if (id === null) continue;
    const size = Number(a.size);
    out.push({
      id: String(id),
      filename: line(a.filename, 255).trim() || `attachment-${id}`,
      contentType: line(a.content_type ?? a.contentType, 255).trim() || 'application/octet-stream',
      size: Number.isFinite(size) && size >= 0 ? Math.floor(size) : 0,
    });
  }
  return out;
}

// Headers are our extension too: a few are sent (Date, Message-ID); a record of thousands is cut.
const MAX_HEADERS = 200;

function headers(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string> = {};
  let kept = 0;
  for (const key in value) {
    if (kept >= MAX_HEADERS) break;
    const v = value[key];
    const name = safeLine(key, 128).trim();
    const text = Array.isArray(v)
      ? v
          .slice(0, MAX_HEADERS)
          .map((x) => line(x))
          .join(', ')
      : line(v);
    // `__proto__` as a key would try to replace the record's prototype rather than add a header.
    if (name && name !== '__proto__') {
      out[name] = text;
      kept += 1;
    }
  }
  return out;
}

/** GET /read-mail -> the full message, from a `message` wrapper (public and reference) or a flat record. */
export function parseMessage(data: Obj, offsetMinutes: number): Message {
  const record = isObject(data.message) ? data.message : data;
  if (record.id === undefined) throw badResponse('no message in the answer');
  const message: Message = {
    ...summary(record, offsetMinutes),
    to: addressList(record.to),
    cc: addressList(record.cc),
    bodyText: body(record.body_text),
    // The HTML stays HTML (the viewer converts it and sanitizes the text again), but controls go now.
    bodyHtml: body(record.body_html),
    attachments: attachments(record.attachments),
  };
  const extra = headers(record.headers);
  if (extra) message.headers = extra;
  return message;
}

// A field of a source listing: the longest value kept (a big HTML body is shown whole, bigger is absurd).
const MAX_FIELD_CHARS = 16 * 1024 * 1024;

/**
 * GET /read-mail as a source listing, for a service with no raw route: every field of the message record
 * as it came, in its order, nested values as indented JSON; names and values terminal-safe.
 */
export function parseSourceFields(data: Obj): [string, string][] {
  const record = isObject(data.message) ? data.message : data;
  return Object.entries(record).map(([key, value]) => {
    const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value, null, 2);
    return [safeLine(key, 128), safeBlock(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text)];
  });
}
