/**
 * The value checks of `serve`'s settings, shared by the flags, the --config file and the external
 * accounts' `imap` objects (src/server/imap/account-config.ts): each refusal is a UsageError whose
 * message quotes the value terminal-safe.
 */
import { safeLine } from '../../text/safe-text';
import type { ExtmailAccountConfig } from './server-config';

/** A value the user gave that we refuse; the CLI prints it and exits 2. */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
}

/**
 * A refusal of what a --config file holds: the message ends with the file's path, and the CLI prints no
 * "--help" hint (the fix is in the file, not in the flags).
 */
export class ConfigFileError extends UsageError {
  override readonly name = 'ConfigFileError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

/**
 * A value from the command line or a config file, quoted for an error message. JSON quoting escapes C0
 * controls but not C1 or bidi controls, and a config file's `\u001b` is a real ESC once parsed: the
 * result goes through the terminal-safe boundary too, as everything written to a terminal does.
 */
export function show(value: unknown): string {
  return safeLine(JSON.stringify(value) ?? String(value), 120);
}

/** Providers known to ignore dots in the local part (j.ohn@ and john@ are one mailbox). */
const DOT_INSENSITIVE_PROVIDERS = new Set(['gmail.com', 'googlemail.com']);

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;

/** Checks and lower-cases a domain name. */
export function parseDomain(value: string, where: string): string {
  const d = value.trim().toLowerCase();
  if (!DOMAIN.test(d)) throw new UsageError(`${where}: ${show(value)} is not a domain name`);
  return d;
}

/**
 * `name@provider` (dot-insensitive inferred for gmail.com/googlemail.com), `name@provider:dots` (force
 * dot-insensitive) or `name@provider:nodots` (force dot-sensitive).
 */
export function parseExtmailAccount(value: string, where: string): ExtmailAccountConfig {
  const [address = '', flag, ...rest] = value.trim().split(':');
  const email = address.toLowerCase();
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (rest.length > 0 || at < 1 || !EMAIL_LOCAL.test(local) || local.includes('+') || !DOMAIN.test(domain)) {
    throw new UsageError(
      `${where}: ${show(value)} is not name@provider (optionally :dots or :nodots; no + in the name)`,
    );
  }
  if (flag !== undefined && flag !== 'dots' && flag !== 'nodots') {
    throw new UsageError(`${where}: ${show(flag)} after the address must be "dots" or "nodots"`);
  }
  const dotInsensitive = flag === undefined ? DOT_INSENSITIVE_PROVIDERS.has(domain) : flag === 'dots';
  return { email, dotInsensitive };
}

/** An integer in [min, max] from a flag string or a JSON number. */
export function parseIntIn(value: unknown, min: number, max: number, where: string): number {
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${where}: expected a whole number from ${min} to ${max}, got ${show(value)}`);
  }
  return n;
}

/** A positive number (fractions allowed) from a flag string or a JSON number. */
export function parsePositive(value: unknown, where: string): number {
  const n = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`${where}: expected a positive number, got ${show(value)}`);
  }
  return n;
}
