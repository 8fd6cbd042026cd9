/**
 * The config file's per-provider settings and the order `auto` and the picker's `p` go through:
 *   "providers": {"mailtm": {"baseUrl": "..."}, "tempmaillol": {"baseUrl": "...", "apiKey": "..."}, ...}
 *   "providerOrder": ["mailtm", "tempmaillol", "guerrilla", "tempmail"]
 * plus TEMPMAIL_TEMPMAILLOL_KEY for TempMail.lol's key. A bad value is a ConfigError naming the key.
 */
import { array, check, custom, type ObjectEntries, optional, pipe, strictObject, string, transform } from 'valibot';
import { DEFAULT_PROVIDER_ORDER, isProviderId, PROVIDER_IDS, type ProviderId } from '../model/mail-types';
import { aString, baseUrlText, show, unknownText } from './setting-values';

/** One provider's settings: its base URL, and TempMail.lol's API key (secret: never shown). */
export interface ProviderSettings {
  baseUrl?: string;
  apiKey?: string;
}

export type ProvidersSettings = Partial<Record<ProviderId, ProviderSettings>>;

/** The variable TempMail.lol's API key may come from (beats the config file). */
export const TEMPMAILLOL_KEY_ENV = 'TEMPMAIL_TEMPMAILLOL_KEY';

/** An API key from the environment or the file: one line of printable ASCII (it travels in a header). */
export const apiKeyText = pipe(
  aString,
  transform((key) => key.trim()),
  // Said without the key itself: it is a secret.
  check((key) => /^[\x21-\x7e]{1,512}$/.test(key), 'must be an API key (one line of printable characters, no spaces)'),
);

const NON_EMPTY = 'must be a non-empty string';
const nonEmpty = pipe(
  string(NON_EMPTY),
  check((s) => s.trim() !== '', NON_EMPTY),
);

/**
 * An object (not a list) with only the keys of `entries`: `unknown <what> "k" (did you mean ...? / known: ...)`
 * for any other key.
 */
const only = <E extends ObjectEntries>(entries: E, unknown: string, known: string, notObject: string) =>
  pipe(
    custom<object>((o) => typeof o === 'object' && o !== null && !Array.isArray(o), notObject),
    strictObject(entries, (issue) =>
      issue.expected === 'never'
        ? unknownText(unknown, issue.path?.at(-1)?.key, Object.keys(entries), known)
        : notObject,
    ),
  );

// The keys each provider's object takes: an API key only where the provider has one.
const baseUrl = optional(pipe(nonEmpty, baseUrlText));
const settingsOf = <E extends ObjectEntries>(entries: E) =>
  optional(only(entries, 'key', 'known keys', 'must be an object such as {"baseUrl": "https://..."}'));

/** `providers` from the config file; a base URL is checked as the top-level one is. */
export const providersSchema = only(
  {
    tempmail: settingsOf({ baseUrl }),
    mailtm: settingsOf({ baseUrl }),
    guerrilla: settingsOf({ baseUrl }),
    tempmaillol: settingsOf({ baseUrl, apiKey: optional(pipe(nonEmpty, apiKeyText)) }),
  } satisfies Record<ProviderId, unknown>,
  'provider',
  'known',
  'must be an object such as {"mailtm": {"baseUrl": "https://api.mail.tm/"}}',
);

const unknownProvider = (issue: { input: unknown }) =>
  `unknown provider ${show(issue.input)} (known: ${PROVIDER_IDS.join(', ')})`;
const ORDER = `must be a list of providers such as ${JSON.stringify(DEFAULT_PROVIDER_ORDER)}`;
const twice = (list: string[]) => list.find((id, i) => list.indexOf(id) !== i);

/** `providerOrder`: known providers, each once, at least one. */
export const orderSchema = pipe(
  array(
    pipe(
      string(unknownProvider),
      check((id) => isProviderId(id.trim().toLowerCase()), unknownProvider),
      transform((id) => id.trim().toLowerCase() as ProviderId),
    ),
    ORDER,
  ),
  check((list) => list.length > 0, ORDER),
  check(
    (list) => twice(list) === undefined,
    (issue) => `names ${twice(issue.input)} twice`,
  ),
);
