/**
 * Guerrilla Mail's answers (GuerrillaMailAPI.html, "Guerrilla Mail JSON API" v1.0) read into the
 * project's types. Fields are strings or numbers as the service likes (`mail_id` "42" or 42), times are
 * Unix seconds, senders are "Name <address>" or a bare address, subjects and senders come HTML-escaped
 * (the API feeds a web page), bodies are HTML. Entities are decoded first and the terminal-safe boundary
 * applied after, so an `&#27;` cannot become an escape sequence.
 */
import type { AttachmentInfo, Message, MessageSummary } from '../../model/mail-types';
import { clipRaw, safeLine } from '../../text/safe-text';
import {
  addressList,
  badResponse,
  MAX_ATTACHMENTS,
  body,
  isObject,
  line,
  requireLine,
  senderParts,
  time,
  toId,
  type Obj,
} from '../wire/wire-json';

/** The sid_token travels back in query strings: validated, never rewritten. */
const SID_SHAPE = /^[A-Za-z0-9_-]{1,256}$/;

/** get_email_address / set_email_user -> the address, its creation time and the session token. */
export function parseAddress(data: unknown): { email: string; createdAt: Date | null; sid: string } {
  if (!isObject(data)) throw badResponse('the address is not a record');
  const email = requireLine(data.email_addr, 'address', 512);
  if (typeof data.sid_token !== 'string' || !SID_SHAPE.test(data.sid_token)) throw badResponse('no valid sid_token');
  return { email, createdAt: seconds(data.email_timestamp), sid: data.sid_token };
}

/** The sid_token an answer carries (it may change at any call), when it carries a valid one. */
export function sidOf(data: unknown): string | undefined {
  return isObject(data) && typeof data.sid_token === 'string' && SID_SHAPE.test(data.sid_token)
    ? data.sid_token
    : undefined;
}

function seconds(value: unknown): Date | null {
  const n = typeof value === 'string' && /^\s*\d{1,12}\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' ? time(n, 0) : null;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the HTML entities the API escapes its text fields with (named few, decimal, hex). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// One-line text: cut to what can show, entities decoded, then made terminal-safe.
const text = (value: unknown, max = 1000): string =>
  typeof value === 'string' ? safeLine(decodeEntities(clipRaw(value, max)), max) : line(value, max);

// The sender as served is cut here before anything reads it: generous, because the address comes last
// and a long name must not push it out (each part is cut to its own field's length after).
const SENDER_RAW_MAX = 64 * 1024;

/** "Name <address>" or "address" -> name and address (wire-json.ts senderParts), entities decoded first. */
export function sender(value: unknown): { senderName: string; senderEmail: string } {
  return senderParts(typeof value === 'string' ? decodeEntities(value.slice(0, SENDER_RAW_MAX)) : '');
}

function summary(record: Obj): MessageSummary {
  const id = toId(record.mail_id);
  if (id === null) throw badResponse('a message has no valid id');
  return {
    id: String(id),
    ...sender(record.mail_from),
    subject: text(record.mail_subject),
    receivedAt: seconds(record.mail_timestamp),
  };
}

/** One entry of a list; a bad response for one that is not a message with a usable id. */
export function parseSummary(entry: unknown): MessageSummary {
  if (!isObject(entry)) throw badResponse('a message is not a record');
  return summary(entry);
}

/**
 * get_email_list / check_email -> the page's entries (read one by one with parseSummary, so one bad
 * entry costs only itself), and the count of the whole inbox and its address when given.
 */
export function parseList(data: unknown): { entries: unknown[]; count: number | undefined; email: string | undefined } {
  if (!isObject(data) || !Array.isArray(data.list)) throw badResponse('no list of messages');
  const count = toId(data.count);
  const email = typeof data.email === 'string' ? safeLine(data.email, 512).trim() : undefined;
  return { entries: data.list, count: count ?? undefined, email: email || undefined };
}

/** The welcome message Guerrilla Mail puts in every new inbox: not mail anyone sent to the address. */
export function isWelcome(m: MessageSummary): boolean {
  return m.senderEmail.toLowerCase() === 'no-reply@guerrillamail.com' && /^welcome to guerrilla ?mail/i.test(m.subject);
}

function attachments(value: unknown): AttachmentInfo[] {
  if (!Array.isArray(value)) return [];
  const out: AttachmentInfo[] = [];
  for (const a of value) {
    if (out.length >= MAX_ATTACHMENTS) break;
    // `p` is the MIME part number the download asks for ("2", "1.2").
    if (!isObject(a) || typeof a.p !== 'string' || !/^[0-9.]{1,32}$/.test(a.p)) continue;
    out.push({
      id: a.p,
      filename: text(a.f, 255).trim() || `attachment-${a.p}`,
      contentType: line(a.t, 255).trim() || 'application/octet-stream',
      size: 0,
    });
  }
  return out;
}

// mail_recipient is one string (the address, or a list of them): what an address list of the viewer shows.
const RECIPIENTS_MAX = 64 * 1024;

/**
 * fetch_email -> the message. `false` (what the service answers for an id it does not have) is null.
 * The body is HTML unless `content_type` says plain text.
 */
export function parseMessage(data: unknown): Message | null {
  if (data === false || data === null) return null;
  if (!isObject(data)) throw badResponse('the message is not a record');
  const base = summary(data);
  const plain = typeof data.content_type === 'string' && /^text\/plain/i.test(data.content_type);
  const content = typeof data.mail_body === 'string' && data.mail_body.trim() ? body(data.mail_body) : null;
  return {
    ...base,
    to: addressList(
      typeof data.mail_recipient === 'string'
        ? decodeEntities(clipRaw(data.mail_recipient, RECIPIENTS_MAX))
        : data.mail_recipient,
    ),
    cc: [],
    bodyText: plain ? content : null,
    bodyHtml: plain ? null : content,
    attachments: attachments(data.att_info),
  };
}
