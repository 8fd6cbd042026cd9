/**
 * The values a setting may take, checked the same way wherever it comes from (the config file, the
 * environment, a flag): each refusal a ConfigError that names where the value came from.
 */
import { join, resolve } from 'node:path';
import { parseZoneOffset } from '../platform/time';
import { displayBaseUrl } from './base-url';
import { safeLine } from '../text/safe-text';

/** A bad setting: the message names the source (file, variable or flag) and the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseBool(where: string, value: string): boolean {
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${where} must be true or false (1/0, yes/no, on/off), got ${show(value)}`);
}

export function parseZone(where: string, value: string): string {
  const zone = value.trim();
  if (zone === '' || parseZoneOffset(zone) === null) {
    throw new ConfigError(`${where} must be a time zone such as UTC, +02:00 or Europe/Berlin, got ${show(value)}`);
  }
  return zone;
}

export function parseDir(where: string, value: string, home: string): string {
  const v = value.trim();
  if (v === '' || v.includes('\0')) throw new ConfigError(`${where} must be a directory path, got ${show(value)}`);
  // A shell would have expanded "~" on the command line, but not inside JSON or a quoted variable.
  const expanded = v === '~' ? home : v.startsWith('~/') ? join(home, v.slice(2)) : v;
  return resolve(expanded);
}

export function expectString(where: string, value: unknown, what: string): string {
  if (typeof value !== 'string') throw new ConfigError(`${where} must be a string (${what}), got ${show(value)}`);
  return value;
}

/** Validates a service base URL: absolute http(s), nothing else (no file:, no javascript:). */
export function parseBaseUrl(where: string, value: string): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Said without user:password@: a mistyped URL can still carry a real password.
    throw new ConfigError(
      `${where} must be an http(s) URL such as https://mail.example/api/, got ${show(displayBaseUrl(value))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${where} must be an http(s) URL, got ${show(displayBaseUrl(value))}`);
  }
  return text;
}

// Values are the user's own, but they end up on a terminal: quoted, escaped, made safe, kept short.
export function show(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return safeLine(json, 80);
}
