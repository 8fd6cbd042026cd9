/**
 * mail.tm's answers (docs.mail.tm) read into the project's types. The API is API Platform: collections
 * come as JSON-LD (`hydra:member`, `hydra:totalItems`) or, asked for plain JSON, as bare arrays; both are
 * read. Resource ids are strings (hex). Times are ISO 8601 with a zone. `html` is a list of parts.
 * Every string passes the terminal-safe boundary here, as it enters our types.
 */
import type { AttachmentInfo, Domain, Message, MessageSummary } from '../../model/mail-types';
import {
  addressList,
  badResponse,
  MAX_ATTACHMENTS,
  body,
  isObject,
  line,
  requireLine,
  time,
  type Obj,
} from '../wire/wire-json';

/** A collection's items, from JSON-LD (`hydra:member`, or `member` in newer API Platform) or a bare array. */
export function members(data: unknown, what: string): unknown[] {
  if (Array.isArray(data)) return data;
  if (isObject(data)) {
    const list = data['hydra:member'] ?? data.member;
    if (Array.isArray(list)) return list;
  }
  throw badResponse(`no list of ${what}`);
}

/** `hydra:totalItems` (or `totalItems`), when the answer says it. */
export function totalItems(data: unknown): number | undefined {
  if (!isObject(data)) return undefined;
  const n = data['hydra:totalItems'] ?? data.totalItems;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

// mail.tm ids: 24 hex digits today. Anything that could change a URL path is refused, not sent.
const ID_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

/** A resource id we may put in a path, or a bad response. */
export function requireResourceId(value: unknown, what: string): string {
  if (typeof value === 'string' && ID_SHAPE.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  throw badResponse(`${what} has no valid id`);
}

/** True for an id the caller gave that is safe in a path. */
export const isResourceId = (value: string): boolean => ID_SHAPE.test(value);

/**
 * One domain of the list: null for one that cannot take new accounts (inactive or private); a bad
 * response for an entry that is not a domain (the listing drops and counts it).
 */
export function parseDomain(d: unknown): Domain | null {
  if (!isObject(d)) throw badResponse('a domain is not a record');
  if (d.isActive === false || d.isPrivate === true) return null;
  return { id: 0, domain: requireLine(d.domain, 'domain name', 255) };
}

// A JWT is three base64url parts; anything with spaces or controls is not one we will send in a header.
const TOKEN_SHAPE = /^[\x21-\x7e]{1,4096}$/;

/** POST /token -> the token (and the account id it belongs to). */
export function parseToken(data: unknown): { token: string; accountId?: string } {
  if (!isObject(data) || typeof data.token !== 'string' || !TOKEN_SHAPE.test(data.token))
    throw badResponse('no valid token');
  const id = typeof data.id === 'string' && ID_SHAPE.test(data.id) ? data.id : undefined;
  return { token: data.token, ...(id ? { accountId: id } : {}) };
}

/** POST /accounts (and GET /me) -> the account's id and address. */
export function parseAccount(data: unknown): { id: string; address: string } {
  if (!isObject(data)) throw badResponse('the account is not a record');
  return { id: requireResourceId(data.id, 'the account'), address: requireLine(data.address, 'address', 512) };
}

function sender(from: unknown): { senderName: string; senderEmail: string } {
  if (!isObject(from)) return { senderName: '', senderEmail: line(from, 512).trim() };
  return { senderName: line(from.name, 256).trim(), senderEmail: line(from.address, 512).trim() };
}

function summary(record: Obj): MessageSummary {
  return {
    id: requireResourceId(record.id, 'a message'),
    ...sender(record.from),
    subject: line(record.subject),
    receivedAt: time(record.createdAt, 0),
    // mail.tm keeps read state and says which carry attachments: the inbox marks both.
    ...(typeof record.seen === 'boolean' ? { seen: record.seen } : {}),
    ...(typeof record.hasAttachments === 'boolean' ? { hasAttachments: record.hasAttachments } : {}),
  };
}

/** One entry of GET /messages; a bad response for one that is not a message with a usable id. */
export function parseSummary(entry: unknown): MessageSummary {
  if (!isObject(entry)) throw badResponse('a message is not a record');
  return summary(entry);
}

/** An attachment with the URL its bytes are at (relative to the API, as mail.tm gives it). */
export interface MailtmAttachment extends AttachmentInfo {
  downloadUrl: string | null;
}

function attachments(value: unknown): MailtmAttachment[] {
  if (!Array.isArray(value)) return [];
  const out: MailtmAttachment[] = [];
  for (const a of value) {
    if (out.length >= MAX_ATTACHMENTS) break;
    if (!isObject(a) || typeof a.id !== 'string' || !ID_SHAPE.test(a.id)) continue;
    const size = Number(a.size);
    out.push({
      id: a.id,
      filename: line(a.filename, 255).trim() || `attachment-${a.id}`,
      contentType: line(a.contentType, 255).trim() || 'application/octet-stream',
      size: Number.isFinite(size) && size >= 0 ? Math.floor(size) : 0,
      downloadUrl: typeof a.downloadUrl === 'string' ? a.downloadUrl : null,
    });
  }
  return out;
}

// `html` is a list of parts (one per HTML part of the mail); some answers give one string.
function html(value: unknown): string | null {
  const parts =
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.filter((p): p is string => typeof p === 'string')
        : [];
  const joined = parts.join('\n');
  return joined.trim() ? body(joined) : null;
}

/** GET /messages/{id} -> the message, and its attachments with their download URLs. */
export function parseMessage(data: unknown): { message: Message; downloads: MailtmAttachment[] } {
  if (!isObject(data)) throw badResponse('the message is not a record');
  const downloads = attachments(data.attachments);
  const text = typeof data.text === 'string' && data.text.trim() ? body(data.text) : null;
  const message: Message = {
    ...summary(data),
    to: addressList(data.to),
    cc: addressList(data.cc),
    // mail.tm sends "" for a part the mail does not have.
    bodyText: text,
    bodyHtml: html(data.html),
    attachments: downloads.map(({ downloadUrl: _url, ...info }) => info),
  };
  return { message, downloads };
}
