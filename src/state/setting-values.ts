/**
 * The values a setting may take, as valibot schemas read the same way wherever the value comes from (the
 * config file, the environment, a flag): each refusal a ConfigError that names where it came from, in our
 * words (valibot's own never reach the user). Only the functions used are imported: they are on the way
 * to the app's first frame (docs/performance.md, "What valibot costs the app's start").
 */
import { join, resolve } from 'node:path';
import { check, type GenericSchema, type InferOutput, pipe, safeParse, string, transform } from 'valibot';
import { parseZoneOffset } from '../platform/time';
import { displayBaseUrl } from './base-url';
import { unknownName } from '../text/closest-key';
import { safeLine } from '../text/safe-text';

/** A bad setting: the message names the source (file, variable or flag) and the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// Values are the user's own, but they end up on a terminal: quoted, escaped, made safe, kept short.
export function show(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return safeLine(json, 80);
}

/**
 * `value` read by `schema`. The first thing wrong is a ConfigError: `where`, the path to the wrong part
 * (`.mailtm.baseUrl`; places in a list are not said), then the schema's message: after a colon when it
 * names something unknown (`: unknown key "x" (known keys: ...)`), else after a space (` must be ...`).
 */
export function readSetting<S extends GenericSchema>(schema: S, value: unknown, where: string): InferOutput<S> {
  const result = safeParse(schema, value, { abortEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  // An unknown key's issue has the key as the last step of its path: the message names it instead.
  const path = (issue.path ?? []).slice(0, issue.expected === 'never' ? -1 : undefined);
  const at = path.map((step) => (typeof step.key === 'string' ? `.${step.key}` : '')).join('');
  throw new ConfigError(`${where}${at}${issue.message.startsWith('unknown ') ? ':' : ''} ${issue.message}`);
}

/**
 * `unknown <what> "k" (did you mean "key"?)` when a known one is close, else the known ones listed
 * (`known keys: a, b`, as `knownWord` names them).
 */
export function unknownText(what: string, typed: unknown, known: readonly string[], knownWord = 'known keys'): string {
  return unknownName(what, typed, show(typed), known, `${knownWord}: ${known.join(', ')}`);
}

/** A refusal that shows the value: `must be <what>, got <the value>`. */
export const must =
  (what: string) =>
  (issue: { input: unknown }): string =>
    `must be ${what}, got ${show(issue.input)}`;

/** The start of a setting given as text (a variable's, a flag's). */
export const aString = string(must('a string'));

/** The config file's string of a setting that the environment and flags give as text (`schema`). */
export const fileString = <T>(what: string, schema: GenericSchema<string, T>) =>
  pipe(string(must(`a string (${what})`)), schema);

const YES = ['1', 'true', 'yes', 'on'];
const YES_OR_NO = [...YES, '0', 'false', 'no', 'off'];

export const boolText = pipe(
  aString,
  check((b) => YES_OR_NO.includes(b.toLowerCase()), must('true or false (1/0, yes/no, on/off)')),
  transform((b) => YES.includes(b.toLowerCase())),
);

export const zoneText = pipe(
  aString,
  check(
    (z) => z.trim() !== '' && parseZoneOffset(z.trim()) !== null,
    must('a time zone such as UTC, +02:00 or Europe/Berlin'),
  ),
  transform((z) => z.trim()),
);

/** A directory; a leading `~` is left for expandHome. */
export const dirText = pipe(
  aString,
  check((d) => d.trim() !== '' && !d.includes('\0'), must('a directory path')),
  transform((d) => d.trim()),
);

/** `dir` from dirText, absolute: a shell expands "~" on the command line, but not inside JSON or a quoted variable. */
export function expandHome(dir: string, home: string): string {
  return resolve(dir === '~' ? home : dir.startsWith('~/') ? join(home, dir.slice(2)) : dir);
}

/** A service base URL: absolute http(s), nothing else (no file:, no javascript:). */
export const baseUrlText = pipe(
  aString,
  // Said without user:password@: a mistyped URL can still carry a real password.
  check(
    (url) => URL.canParse(url.trim()),
    (i) => `must be an http(s) URL such as https://mail.example/api/, got ${show(displayBaseUrl(i.input))}`,
  ),
  check(
    (url) => /^https?:$/.test(new URL(url.trim()).protocol),
    (i) => `must be an http(s) URL, got ${show(displayBaseUrl(i.input))}`,
  ),
  transform((url) => url.trim()),
);

/** One of `choices`, in any case, spaces around it allowed; `said` lists them in the refusal. */
export const choiceText = <T extends string>(choices: readonly T[], said: string) =>
  pipe(
    aString,
    check((c) => (choices as readonly string[]).includes(c.trim().toLowerCase()), must(`one of ${said}`)),
    transform((c) => c.trim().toLowerCase() as T),
  );
