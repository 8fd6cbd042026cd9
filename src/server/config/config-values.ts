/**
 * The value checks of `serve`'s settings, shared by the flags, the --config file and the external
 * accounts' `imap` objects (src/server/imap/account-config.ts): each refusal is a UsageError whose
 * message quotes the value terminal-safe.
 */
import { resolve } from 'node:path';
import * as v from 'valibot';
import type { ExtmailAccountConfig } from './server-config';
import { show } from './show';
import { unknownKey } from './unknown-key';

export { show };

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

/** Providers known to ignore dots in the local part (j.ohn@ and john@ are one mailbox). */
const DOT_INSENSITIVE_PROVIDERS = new Set(['gmail.com', 'googlemail.com']);

export const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;

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

function isIntIn(value: unknown, min: number, max: number): boolean {
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= min && n <= max;
}

/** How the path to the wrong part of a value is written after `where`: ` imap port`, or `[0].name`. */
export type PathText = (path: readonly v.IssuePathItem[]) => string;

/** Keys after spaces, list places left out: `extmailAccounts me@x.test imap folders`. */
export const spacedPath: PathText = (path) => path.map((p) => (typeof p.key === 'string' ? ` ${p.key}` : '')).join('');

/** As JSON would: `[0].name`. */
export const jsonPath: PathText = (path) =>
  path.map((p) => (typeof p.key === 'number' ? `[${p.key}]` : `.${String(p.key)}`)).join('');

/**
 * `value` read by a valibot `schema` (a setting, from a flag or the --config file). The first thing wrong
 * is a UsageError in our words: `where`, the path to the wrong part, then the message the schema gives
 * there (each schema here gives its own; valibot's default words never reach the user). A part that reads
 * itself by hand (an account entry, named by its address) throws a UsageError saying what follows `where`
 * (`: ...`, ` me@x.test imap: ...`): `where` is put in front of it.
 */
export function readBy<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: string,
  pathText: PathText = spacedPath,
): v.InferOutput<S> {
  let result: v.SafeParseResult<S>;
  try {
    result = v.safeParse(schema, value, { abortEarly: true });
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${where}${error.message}`);
    throw error;
  }
  if (result.success) return result.output;
  const [issue] = result.issues;
  // An unknown key's issue has the key as the last step of its path: the message names it instead.
  const path = (issue.path ?? []).slice(0, issue.expected === 'never' ? -1 : undefined);
  throw new UsageError(`${where}${pathText(path)}: ${issue.message}`);
}

/**
 * An object with only the keys of `entries`: `what` when the value is no object (a list is none, though
 * valibot's object takes one), `unknown key "k" (did you mean ...?)` (unknown-key.ts) for any other key (a misspelt key must not be
 * ignored). A key that is missing gets the message its own schema gives for no value ("expected a file
 * path"), as when it was given wrong.
 */
export function strictObject<E extends v.ObjectEntries>(entries: E, what: string) {
  const known = Object.keys(entries);
  return v.pipe(
    v.custom<object>((o) => typeof o === 'object' && o !== null && !Array.isArray(o), what),
    v.strictObject(entries, (issue) => {
      if (issue.expected === 'never') return unknownKey(issue.path?.at(-1)?.key, known, 'docs/server/README.md');
      const key = issue.path?.at(-1)?.key;
      if (typeof key !== 'string' || !Object.hasOwn(entries, key)) return what;
      return v.safeParse(entries[key]!, undefined).issues?.[0].message ?? what;
    }),
  );
}

/** A path as given (not trimmed), resolved: `expected <what>` when it is blank. */
export const pathTo = (what: string) =>
  v.pipe(
    v.string(`expected ${what}`),
    v.check((path) => path.trim() !== '', `expected ${what}`),
    v.transform((path) => resolve(path)),
  );

/** A string with something in it, trimmed: `expected <what>` otherwise. */
export const text = (what: string) => v.pipe(v.string(`expected ${what}`), v.trim(), v.nonEmpty(`expected ${what}`));

/** An integer in [min, max] from a flag string or a JSON number. */
export const intIn = (min: number, max: number) =>
  v.pipe(
    v.custom<number | string>(
      (value) => isIntIn(value, min, max),
      (issue) => `expected a whole number from ${min} to ${max}, got ${show(issue.input)}`,
    ),
    v.transform(Number),
  );
