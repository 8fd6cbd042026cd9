/**
 * An external-mail account as the --config file gives it: `"name@provider[:dots|:nodots]"`, or an object
 * `{email, dotInsensitive, imap}` whose `imap` says where the service fetches the account's mail. Every
 * key is checked and an unknown one refused (a misspelt `pasword_env` must not leave an account that
 * silently never fetches). The password itself is never in the config: `passwordEnv` names a variable,
 * `passwordFile` a file, both read again at each connection (so a rotated password needs no restart).
 */
import { resolve } from 'node:path';
import { parseExtmailAccount, parseIntIn, show, UsageError } from '../config/config-values';
import { OperatorFileError, readOperatorFileSync } from '../../platform/operator-file';
import type { ExtmailAccountConfig, ImapAccountConfig, ImapTls, PasswordSource } from '../config/server-config';
import { PASSWORD_FILE_MAX_BYTES } from './password';

const ACCOUNT_KEYS = ['email', 'dotInsensitive', 'imap'];
const IMAP_KEYS = ['host', 'port', 'tls', 'user', 'passwordEnv', 'passwordFile', 'folders', 'pollSeconds'];
const TLS_MODES: readonly ImapTls[] = ['tls', 'starttls', 'none'];
/** IMAP's well-known ports: 993 for TLS from the start, 143 for STARTTLS or clear text. */
const DEFAULT_PORT: Record<ImapTls, number> = { tls: 993, starttls: 143, none: 143 };
const DEFAULT_POLL_SECONDS = 30;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function refuseUnknown(o: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(o).find((k) => !known.includes(k));
  if (unknown !== undefined)
    throw new UsageError(`${where}: unknown key ${show(unknown)} (known: ${known.join(', ')})`);
}

function text(value: unknown, where: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${where}: expected ${what}`);
  return value.trim();
}

/** Where the password comes from: exactly one of passwordEnv and passwordFile, present and readable now. */
function passwordSource(o: Record<string, unknown>, where: string, env: NodeJS.ProcessEnv): PasswordSource {
  const hasEnv = o.passwordEnv !== undefined;
  const hasFile = o.passwordFile !== undefined;
  if (hasEnv === hasFile) {
    throw new UsageError(
      `${where}: give the password by "passwordEnv" (a variable's name) or "passwordFile" (a file's path), one of them`,
    );
  }
  if (hasEnv) {
    const name = text(o.passwordEnv, `${where} passwordEnv`, 'the name of an environment variable');
    if (!ENV_NAME.test(name))
      throw new UsageError(`${where} passwordEnv: ${show(name)} is not an environment variable's name`);
    // Said at start, not at the first connection: a missing secret is a deployment mistake.
    if (!env[name])
      throw new UsageError(`${where} passwordEnv: the environment variable ${name} is not set (or empty)`);
    return { env: name };
  }
  const file = resolve(text(o.passwordFile, `${where} passwordFile`, 'a file path'));
  try {
    // Read as each connection will read it (a regular file, not too large), and forgotten at once.
    readOperatorFileSync(file, { maxBytes: PASSWORD_FILE_MAX_BYTES }).fill(0);
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new UsageError(`${where} passwordFile: cannot read ${show(file)} (${why})`);
  }
  return { file };
}

function folderList(value: unknown, where: string): string[] {
  const bad = `${where}: expected a list of folder names, e.g. ["INBOX", "[Gmail]/Spam"]`;
  if (!Array.isArray(value) || value.length === 0) throw new UsageError(bad);
  const folders = value.map((f) => (typeof f === 'string' && f.trim() !== '' ? f : undefined));
  if (folders.includes(undefined)) throw new UsageError(bad);
  const list = folders as string[];
  // INBOX is case-insensitive in IMAP; other names are the server's to compare.
  const keys = list.map((f) => (f.toUpperCase() === 'INBOX' ? 'INBOX' : f));
  if (new Set(keys).size !== keys.length) throw new UsageError(`${where}: a folder is listed twice`);
  return keys;
}

/** Checks an account's `imap` object. */
export function parseImap(value: unknown, email: string, where: string, env: NodeJS.ProcessEnv): ImapAccountConfig {
  if (!isObject(value))
    throw new UsageError(
      `${where}: expected an object {"host", "port", "tls", "user", "passwordEnv" or "passwordFile", "folders"}`,
    );
  refuseUnknown(value, IMAP_KEYS, where);
  const host = text(value.host, `${where} host`, "the IMAP server's host name or address");
  const tls = value.tls ?? 'tls';
  if (typeof tls !== 'string' || !TLS_MODES.includes(tls as ImapTls)) {
    throw new UsageError(`${where} tls: expected "tls", "starttls" or "none", got ${show(tls)}`);
  }
  const mode = tls as ImapTls;
  return {
    host,
    port: value.port === undefined ? DEFAULT_PORT[mode] : parseIntIn(value.port, 1, 65535, `${where} port`),
    tls: mode,
    user: value.user === undefined ? email : text(value.user, `${where} user`, 'the login name'),
    password: passwordSource(value, where, env),
    ...(value.folders === undefined ? {} : { folders: folderList(value.folders, `${where} folders`) }),
    pollSeconds:
      value.pollSeconds === undefined
        ? DEFAULT_POLL_SECONDS
        : parseIntIn(value.pollSeconds, 1, 3600, `${where} pollSeconds`),
  };
}

/** One entry of `extmailAccounts`: a string, or an object with only the known keys. */
export function parseAccountEntry(item: unknown, where: string, env: NodeJS.ProcessEnv): ExtmailAccountConfig {
  if (typeof item === 'string') return parseExtmailAccount(item, where);
  if (
    !isObject(item) ||
    typeof item.email !== 'string' ||
    (item.dotInsensitive !== undefined && typeof item.dotInsensitive !== 'boolean')
  ) {
    throw new UsageError(
      `${where}: each account is "name@provider" or {"email": "...", "dotInsensitive": true|false, "imap": {...}}`,
    );
  }
  const parsed = parseExtmailAccount(item.email, where);
  const at = `${where} ${parsed.email}`;
  refuseUnknown(item, ACCOUNT_KEYS, at);
  const account: ExtmailAccountConfig = {
    email: parsed.email,
    dotInsensitive: item.dotInsensitive ?? parsed.dotInsensitive,
  };
  if (item.imap !== undefined) account.imap = parseImap(item.imap, parsed.email, `${at} imap`, env);
  return account;
}

/** True for a host that is this machine (a clear-text connection to it never crosses a network). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
