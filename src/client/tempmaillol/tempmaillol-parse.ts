/**
 * TempMail.lol's answers (API v2, as its server wiki and official SDKs document them) read into the
 * project's types: an inbox is `{address, token}`; a check is `{emails, expired}`, each email `{from, to,
 * subject, body, html, date, ip}` with `date` in epoch milliseconds and `html` null or absent for a text
 * mail. Emails carry no id: one is made from what identifies the mail (its time, sender, recipient,
 * subject and a digest of its text), the same for every process that lists the same inbox.
 */
import { createRequire } from 'node:module';
import type { Message, MessageSummary } from '../../model/mail-types';
import { clipRaw } from '../../text/safe-text';
import {
  addressList,
  badResponse,
  body,
  isObject,
  line,
  requireLine,
  senderParts,
  time,
  type Obj,
} from '../wire/wire-json';

// node:crypto is loaded at the first email, not with the app (its start-up draws without it).
const load = createRequire(import.meta.url);
const crypto = (): typeof import('node:crypto') => load('node:crypto') as typeof import('node:crypto');

/** A token goes back in a query string: validated, never rewritten. */
const TOKEN_SHAPE = /^[A-Za-z0-9_.-]{1,512}$/;
// The sender as served is cut here before anything reads it (its address comes last).
const SENDER_RAW_MAX = 4 * 1024;
// What the id digests of a body: enough to tell two mails of the same second apart.
const ID_BODY_MAX = 64 * 1024;

/** POST /v2/inbox/create -> the address and its token. */
export function parseInbox(data: unknown): { address: string; token: string } {
  if (!isObject(data)) throw badResponse('the inbox is not a record');
  const address = requireLine(data.address, 'address', 512);
  if (typeof data.token !== 'string' || !TOKEN_SHAPE.test(data.token)) throw badResponse('no valid token');
  return { address, token: data.token };
}

/** GET /v2/inbox -> whether the inbox has expired, and its emails as served. */
export function parseCheck(data: unknown): { expired: boolean; emails: unknown[] } {
  if (!isObject(data)) throw badResponse('the inbox is not a record');
  return { expired: data.expired === true, emails: Array.isArray(data.emails) ? data.emails : [] };
}

/** "Name <address>" or "address" -> name and address (wire-json.ts senderParts). */
function sender(value: unknown): { senderName: string; senderEmail: string } {
  return senderParts(typeof value === 'string' ? clipRaw(value, SENDER_RAW_MAX) : '');
}

/** The id of an email: hex of a digest of what identifies it (the API gives none). */
export function emailId(email: Obj): string {
  const hash = crypto().createHash('sha256');
  for (const field of [email.date, email.from, email.to, email.subject])
    hash.update(`${typeof field === 'string' || typeof field === 'number' ? clipRaw(String(field), 4096) : ''}\n`);
  hash.update(typeof email.body === 'string' ? clipRaw(email.body, ID_BODY_MAX) : '');
  return hash.digest('hex').slice(0, 24);
}

/** One email of a check as a summary; a bad response for one that is not a record. */
export function parseSummary(entry: unknown): MessageSummary {
  if (!isObject(entry)) throw badResponse('an email is not a record');
  return { id: emailId(entry), ...sender(entry.from), subject: line(entry.subject), receivedAt: time(entry.date, 0) };
}

/** One email of a check as a whole message: its text and HTML (no attachments in this API). */
export function parseEmail(entry: unknown): Message {
  if (!isObject(entry)) throw badResponse('an email is not a record');
  const text = typeof entry.body === 'string' && entry.body.trim() ? body(entry.body) : null;
  const html = typeof entry.html === 'string' && entry.html.trim() ? body(entry.html) : null;
  return { ...parseSummary(entry), to: addressList(entry.to), cc: [], bodyText: text, bodyHtml: html, attachments: [] };
}
