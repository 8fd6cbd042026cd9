/**
 * Reading JSON answers into the project's own types, shared by every provider: a tolerant JSON parse, the
 * bad-response error, ids, and the field readers that pass every string through the terminal-safe
 * boundary as it enters our types (one line or a block, times, address lists).
 */
import { safeBlock, safeLine } from '../text/safe-text';
import { parseWireTime } from '../platform/time';
import { ApiError } from './api-error';

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

// Address lists: an array of strings or of {name, address|email} objects, or one comma-separated string.
export function addressList(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  const out: string[] = [];
  for (const item of items) {
    let text = '';
    if (typeof item === 'string') text = safeLine(item, 512);
    else if (isObject(item)) {
      const address = safeLine(item.address ?? item.email, 512);
      const name = safeLine(item.name, 256);
      text = name && address ? `${name} <${address}>` : name || address;
    }
    if (text.trim()) out.push(text.trim());
  }
  return out;
}
