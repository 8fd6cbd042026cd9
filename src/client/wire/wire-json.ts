/**
 * Reading JSON answers into the project's own types, shared by every provider: a tolerant JSON parse, the
 * bad-response error, ids, and the field readers that pass every string through the terminal-safe
 * boundary as it enters our types (one line or a block, times, address lists).
 */
import { safeBlock, safeLine } from '../../text/safe-text';
import { parseWireTime } from '../../platform/time';
import { ApiError } from '../api-error';

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The error for an answer we cannot use; `what` names the missing or malformed part. */
export function badResponse(what: string): ApiError {
  return new ApiError('bad_response', `The service sent an unexpected answer (${what})`);
}

/** Parses a JSON body; anything else (an HTML error page, a truncated body) is a bad response. */
export function parseJson(body: string): unknown {
  try {
    // A UTF-8 byte-order mark is legal in front of JSON from some servers but JSON.parse refuses it.
    return JSON.parse(body.replace(/^\ufeff/, ''));
  } catch {
    return undefined;
  }
}

/** A non-negative integer id, from a number or a numeric string; null otherwise. */
export function toId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value)) return Number(value);
  return null;
}

export function requireId(value: unknown, what: string): number {
  const id = toId(value);
  if (id === null) throw badResponse(`${what} has no valid id`);
  return id;
}

// Optional single-line text: a number is shown as written, anything else that is not a string is "".
export function line(value: unknown, maxLength = 1000): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return safeLine(value, maxLength);
}

export function requireLine(value: unknown, what: string, maxLength = 1000): string {
  const text = line(value, maxLength).trim();
  if (!text) throw badResponse(`no ${what}`);
  return text;
}

export function body(value: unknown): string | null {
  return typeof value === 'string' ? safeBlock(value) : null;
}

// Wire time in the service's zone; epoch seconds or milliseconds are accepted from services that send them.
export function time(value: unknown, offsetMinutes: number): Date | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const date = new Date(value < 1e12 ? value * 1000 : value);
    // Past ±8.64e15 ms a Date is Invalid: it would show as "NaN" and throw in toISOString.
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return parseWireTime(value, offsetMinutes);
}

/**
 * "Name <address>" or "address", as a provider serves a sender, into the two parts, terminal-safe. Read
 * without a pattern: the address is the `<...>` that ends the text, the name what comes before it, less
 * its quotes. (A pattern did this for Guerrilla Mail, `^\s*"?(.*?)"?\s*<([^<>]*)>\s*$`, and backtracked
 * about cubically on spaces without a `<`: 4,000 spaces took 7 s.) The caller cuts `raw` first.
 */
export function senderParts(raw: string): { senderName: string; senderEmail: string } {
  const text = raw.trim();
  const open = text.endsWith('>') ? text.lastIndexOf('<') : -1;
  const address = open < 0 ? '' : text.slice(open + 1, -1);
  if (open < 0 || address.includes('>')) return { senderName: '', senderEmail: safeLine(text, 512).trim() };
  let name = text.slice(0, open).trim();
  if (name.startsWith('"')) name = name.slice(1);
  if (name.endsWith('"')) name = name.slice(0, -1);
  return { senderName: safeLine(name, 256).trim(), senderEmail: safeLine(address, 512).trim() };
}

/** Addresses kept of one list (To, Cc): far past any real mail's (SMTP here takes 50 recipients). */
export const MAX_ADDRESSES = 200;
/** Attachments kept of one message. */
export const MAX_ATTACHMENTS = 1_000;

// Address lists: an array of strings or of {name, address|email} objects, or one comma-separated string.
// At most MAX_ADDRESSES are read (a string is not split past them); the rest is said as "(N more)".
export function addressList(value: unknown): string[] {
  const out: string[] = [];
  let more = 0;
  const take = (item: unknown) => {
    let text = '';
    if (typeof item === 'string') text = safeLine(item, 512);
    else if (isObject(item)) {
      const address = safeLine(item.address ?? item.email, 512);
      const name = safeLine(item.name, 256);
      text = name && address ? `${name} <${address}>` : name || address;
    }
    if (text.trim()) out.push(text.trim());
  };
  if (typeof value === 'string') {
    let from = 0;
    while (from <= value.length) {
      const comma = value.indexOf(',', from);
      const end = comma < 0 ? value.length : comma;
      if (out.length < MAX_ADDRESSES) take(value.slice(from, end));
      else if (value.slice(from, end).trim()) more += 1;
      from = end + 1;
    }
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (out.length < MAX_ADDRESSES) take(item);
      else more += 1;
    }
  }
  if (more > 0) out.push(`(${more.toLocaleString('en-US')} more)`);
  return out;
}
