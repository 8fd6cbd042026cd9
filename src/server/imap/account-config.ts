/**
 * An external-mail account as the --config file gives it: `"name@provider[:dots|:nodots]"`, or an object
 * `{email, dotInsensitive, imap}` whose `imap` says where the service fetches the account's mail. Every
 * key is checked and an unknown one refused (a misspelt `pasword_env` must not leave an account that
 * silently never fetches). The password itself is never in the config: `passwordEnv` names a variable,
 * `passwordFile` a file, both read again at each connection (so a rotated password needs no restart).
 */
import { resolve } from 'node:path';
import * as v from 'valibot';
import { intIn, parseExtmailAccount, readBy, show, strictObject, text, UsageError } from '../config/config-values';
import { OperatorFileError, readOperatorFileSync } from '../../platform/operator-file';
import type { ExtmailAccountConfig, ImapAccountConfig, ImapTls, PasswordSource } from '../config/server-config';
import { PASSWORD_FILE_MAX_BYTES } from './password';

/** IMAP's well-known ports: 993 for TLS from the start, 143 for STARTTLS or clear text. */
const DEFAULT_PORT: Record<ImapTls, number> = { tls: 993, starttls: 143, none: 143 };
const FOLDERS = 'expected a list of folder names, e.g. ["INBOX", "[Gmail]/Spam"]';

/** The folders to fetch: INBOX is case-insensitive in IMAP; other names are the server's to compare. */
const folderList = v.pipe(
  v.array(
    v.pipe(
      v.string(FOLDERS),
      v.check((f) => f.trim() !== '', FOLDERS),
    ),
    FOLDERS,
  ),
  v.nonEmpty(FOLDERS),
  v.transform((list) => list.map((f) => (f.toUpperCase() === 'INBOX' ? 'INBOX' : f))),
  v.check((keys) => new Set(keys).size === keys.length, 'a folder is listed twice'),
);

const IMAP = strictObject(
  {
    host: text("the IMAP server's host name or address"),
    port: v.optional(intIn(1, 65535)),
    tls: v.optional(
      v.picklist(['tls', 'starttls', 'none'], (i) => `expected "tls", "starttls" or "none", got ${show(i.input)}`),
      'tls',
    ),
    user: v.optional(text('the login name')),
    passwordEnv: v.optional(
      v.pipe(
        text('the name of an environment variable'),
        v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, (i) => `${show(i.input)} is not an environment variable's name`),
      ),
    ),
    passwordFile: v.optional(
      v.pipe(
        text('a file path'),
        v.transform((path) => resolve(path)),
      ),
    ),
    folders: v.optional(folderList),
    pollSeconds: v.optional(intIn(1, 3600), 30),
  },
  'expected an object {"host", "port", "tls", "user", "passwordEnv" or "passwordFile", "folders"}',
);

/** Where the password comes from: exactly one of passwordEnv and passwordFile, present and readable now. */
function passwordSource(o: v.InferOutput<typeof IMAP>, where: string, env: NodeJS.ProcessEnv): PasswordSource {
  if ((o.passwordEnv === undefined) === (o.passwordFile === undefined)) {
    throw new UsageError(
      `${where}: give the password by "passwordEnv" (a variable's name) or "passwordFile" (a file's path), one of them`,
    );
  }
  if (o.passwordEnv !== undefined) {
    // Said at start, not at the first connection: a missing secret is a deployment mistake.
    if (!env[o.passwordEnv])
      throw new UsageError(`${where} passwordEnv: the environment variable ${o.passwordEnv} is not set (or empty)`);
    return { env: o.passwordEnv };
  }
  const file = o.passwordFile!;
  try {
    // Read as each connection will read it (a regular file, not too large), and forgotten at once.
    readOperatorFileSync(file, { maxBytes: PASSWORD_FILE_MAX_BYTES }).fill(0);
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new UsageError(`${where} passwordFile: cannot read ${show(file)} (${why})`);
  }
  return { file };
}

/** Checks an account's `imap` object. */
export function parseImap(value: unknown, email: string, where: string, env: NodeJS.ProcessEnv): ImapAccountConfig {
  const o = readBy(IMAP, value, where);
  return {
    host: o.host,
    port: o.port ?? DEFAULT_PORT[o.tls],
    tls: o.tls,
    user: o.user ?? email,
    password: passwordSource(o, where, env),
    ...(o.folders === undefined ? {} : { folders: o.folders }),
    pollSeconds: o.pollSeconds,
  };
}

const ACCOUNT_KEYS = { email: v.string(), dotInsensitive: v.optional(v.boolean()), imap: v.optional(v.unknown()) };
const ACCOUNT = strictObject(ACCOUNT_KEYS, 'expected an object');

/** One entry of `extmailAccounts`: a string, or an object with only the known keys. */
export function parseAccountEntry(item: unknown, where: string, env: NodeJS.ProcessEnv): ExtmailAccountConfig {
  if (typeof item === 'string') return parseExtmailAccount(item, where);
  if (!v.is(v.looseObject(ACCOUNT_KEYS), item)) {
    throw new UsageError(
      `${where}: each account is "name@provider" or {"email": "...", "dotInsensitive": true|false, "imap": {...}}`,
    );
  }
  const parsed = parseExtmailAccount(item.email, where);
  const at = `${where} ${parsed.email}`;
  readBy(ACCOUNT, item, at);
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
