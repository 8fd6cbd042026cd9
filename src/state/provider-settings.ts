/**
 * The config file's per-provider settings and the order `auto` and the picker's `p` go through:
 *   "providers": {"mailtm": {"baseUrl": "..."}, "tempmaillol": {"baseUrl": "...", "apiKey": "..."}, ...}
 *   "providerOrder": ["mailtm", "tempmaillol", "guerrilla", "tempmail"]
 * plus TEMPMAIL_TEMPMAILLOL_KEY for TempMail.lol's key. A bad value is a ConfigError naming the key.
 */
import { DEFAULT_PROVIDER_ORDER, isProviderId, PROVIDER_IDS, type ProviderId } from '../model/mail-types';
import { ConfigError, parseBaseUrl, show } from './setting-values';

/** One provider's settings: its base URL, and TempMail.lol's API key (secret: never shown). */
export interface ProviderSettings {
  baseUrl?: string;
  apiKey?: string;
}

export type ProvidersSettings = Partial<Record<ProviderId, ProviderSettings>>;

/** The variable TempMail.lol's API key may come from (beats the config file). */
export const TEMPMAILLOL_KEY_ENV = 'TEMPMAIL_TEMPMAILLOL_KEY';

// The keys each provider's object takes: an API key only where the provider has one.
const KEYS: Record<ProviderId, readonly (keyof ProviderSettings)[]> = {
  tempmail: ['baseUrl'],
  mailtm: ['baseUrl'],
  guerrilla: ['baseUrl'],
  tempmaillol: ['baseUrl', 'apiKey'],
};

/** `providers` from the config file; a base URL is checked as the top-level one is. */
export function parseProvidersKey(where: string, value: unknown): ProvidersSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${where} must be an object such as {"mailtm": {"baseUrl": "https://api.mail.tm/"}}`);
  }
  const out: ProvidersSettings = {};
  for (const [id, entry] of Object.entries(value)) {
    if (!isProviderId(id))
      throw new ConfigError(`${where}: unknown provider ${show(id)} (known: ${PROVIDER_IDS.join(', ')})`);
    const at = `${where}.${id}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new ConfigError(`${at} must be an object such as {"baseUrl": "https://..."}`);
    const settings: ProviderSettings = {};
    for (const [key, v] of Object.entries(entry)) {
      if (!(KEYS[id] as readonly string[]).includes(key))
        throw new ConfigError(`${at}: unknown key ${show(key)} (known keys: ${KEYS[id].join(', ')})`);
      if (typeof v !== 'string' || !v.trim()) throw new ConfigError(`${at}.${key} must be a non-empty string`);
      if (key === 'baseUrl') settings.baseUrl = parseBaseUrl(`${at}.baseUrl`, v);
      else settings.apiKey = checkKey(`${at}.apiKey`, v);
    }
    out[id] = settings;
  }
  return out;
}

/** `providerOrder`: known providers, each once, at least one. */
export function parseOrder(where: string, value: unknown): ProviderId[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(`${where} must be a list of providers such as ${JSON.stringify(DEFAULT_PROVIDER_ORDER)}`);
  const out: ProviderId[] = [];
  for (const id of value) {
    if (typeof id !== 'string' || !isProviderId(id.trim().toLowerCase()))
      throw new ConfigError(`${where}: unknown provider ${show(id)} (known: ${PROVIDER_IDS.join(', ')})`);
    const known = id.trim().toLowerCase() as ProviderId;
    if (out.includes(known)) throw new ConfigError(`${where} names ${known} twice`);
    out.push(known);
  }
  return out;
}

/** An API key from the environment or the file: one line of printable ASCII (it travels in a header). */
export function checkKey(where: string, value: string): string {
  const key = value.trim();
  // Said without the key itself: it is a secret.
  if (!/^[\x21-\x7e]{1,512}$/.test(key))
    throw new ConfigError(`${where} must be an API key (one line of printable characters, no spaces)`);
  return key;
}
