/**
 * Settings of the app and of the scripting commands. Three layers, the later winning: the config file
 * (`$XDG_CONFIG_HOME/tempmail-tui/config.json`), the environment (TEMPMAIL_*), then command-line flags.
 * A bad value anywhere is a ConfigError that names where it came from and which key, never a silent default.
 */
import { chmodSync, readFileSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { boolean, custom, type GenericSchema, type InferOutput, number, pipe, check, transform } from 'valibot';
import { DEFAULT_PROVIDER_ORDER, PROVIDER_IDS, type PostEncoding, type ProviderId } from '../model/mail-types';
import type { AppPaths } from './paths';
import { safeLine } from '../text/safe-text';
import {
  baseUrlText,
  boolText,
  choiceText,
  ConfigError,
  dirText,
  expandHome,
  fileString,
  must,
  readSetting,
  unknownText,
  zoneText,
} from './setting-values';
import {
  apiKeyText,
  orderSchema,
  providersSchema,
  TEMPMAILLOL_KEY_ENV,
  type ProvidersSettings,
} from './provider-settings';

/** A provider named in the settings, or `auto`: the first in `providerOrder` that answers. */
export type ProviderChoice = ProviderId | 'auto';

export interface Settings {
  /**
   * The provider to create addresses on; undefined means "none named": tempmail, at `baseUrl`, or (app
   * only) the in-process local service when no base URL is configured either. `auto`: the first of
   * `providerOrder` that answers.
   */
  provider?: ProviderChoice;
  /** The provider's base URL; undefined means its default (or, with no provider named, "none configured"). */
  baseUrl?: string;
  pollIntervalMs: number;
  /** Ring the terminal bell on new mail. */
  bell: boolean;
  /** The service's zone for wire times without one ("UTC", "+02:00", "Europe/Berlin"). */
  serverTz: string;
  postEncoding: PostEncoding;
  /** Where attachments are saved (absolute). */
  downloadDir: string;
  /** Each provider's own settings (config file `providers`; TEMPMAIL_TEMPMAILLOL_KEY). */
  providers: ProvidersSettings;
  /** The order `auto` tries providers in, and the picker's `p` goes (config file `providerOrder`). */
  providerOrder: ProviderId[];
}

/** Values from the command line; strings are taken as typed, numbers are seconds. */
export interface SettingsFlags {
  provider?: string;
  baseUrl?: string;
  /** Seconds, as typed (`--poll-interval 2.5`) or already a number. */
  pollInterval?: string | number;
  bell?: boolean;
  serverTz?: string;
  postEncoding?: string;
  downloadDir?: string;
}

export { ConfigError };

export const CONFIG_FILE_NAME = 'config.json';
export const DEFAULT_POLL_INTERVAL_MS = 5000;
export const MIN_POLL_INTERVAL_MS = 1000;
// An hour between checks is already useless for a 60-minute address; more is surely a typo.
export const MAX_POLL_INTERVAL_MS = 3_600_000;
const ENCODINGS: readonly PostEncoding[] = ['form', 'json', 'query'];

const CHOICES = [...PROVIDER_IDS, 'auto'] as const;
const provider = choiceText<ProviderChoice>(CHOICES, `${PROVIDER_IDS.join(', ')} or auto`);
const postEncoding = choiceText(ENCODINGS, ENCODINGS.join(', '));

/** Seconds (fractions allowed) to whole milliseconds, from 1 s to an hour. */
const seconds = (s: string | number) =>
  typeof s === 'number' ? s : /^\s*\d+(\.\d+)?\s*$/.test(s) ? Number(s) : Number.NaN;
const pollInterval = (input: GenericSchema<unknown, string | number>) =>
  pipe(
    input,
    check((s) => Math.round(seconds(s) * 1000) >= MIN_POLL_INTERVAL_MS, must('a number of seconds >= 1')),
    check((s) => Math.round(seconds(s) * 1000) <= MAX_POLL_INTERVAL_MS, must('at most 3600 seconds')),
    transform((s) => Math.round(seconds(s) * 1000)),
  );

/** Each setting the environment and flags give, as their text reads. */
const TEXT = {
  provider,
  baseUrl: baseUrlText,
  pollIntervalSeconds: pollInterval(custom<string | number>((s) => typeof s === 'string' || typeof s === 'number')),
  bell: boolText,
  serverTz: zoneText,
  postEncoding,
  downloadDir: dirText,
};
type Key = keyof typeof TEXT;

/** Every key of the config file, in the order `unknown key` lists them. */
const FILE_KEYS = {
  provider: fileString(CHOICES.join(', '), provider),
  baseUrl: fileString('an http(s) URL', baseUrlText),
  pollIntervalSeconds: pollInterval(number(must('a number of seconds >= 1'))),
  bell: boolean(must('true or false')),
  serverTz: fileString('a time zone', zoneText),
  postEncoding: fileString(ENCODINGS.join(', '), postEncoding),
  downloadDir: fileString('a directory path', dirText),
  providers: providersSchema,
  providerOrder: orderSchema,
};
type Values = { -readonly [K in keyof typeof FILE_KEYS]?: InferOutput<(typeof FILE_KEYS)[K]> };

const ENV_NAMES: Record<Key, string> = {
  provider: 'TEMPMAIL_PROVIDER',
  baseUrl: 'TEMPMAIL_BASE_URL',
  pollIntervalSeconds: 'TEMPMAIL_POLL_INTERVAL',
  bell: 'TEMPMAIL_BELL',
  serverTz: 'TEMPMAIL_SERVER_TZ',
  postEncoding: 'TEMPMAIL_POST_ENCODING',
  downloadDir: 'TEMPMAIL_DOWNLOAD_DIR',
};
const FLAG_NAMES: Record<Key, string> = {
  provider: '--provider',
  baseUrl: '--base-url',
  pollIntervalSeconds: '--poll-interval',
  bell: '--no-bell',
  serverTz: '--server-tz',
  postEncoding: '--post-encoding',
  downloadDir: '--download-dir',
};

/** One layer of settings (file, environment or flags): only what it sets. */
export type SettingsLayer = Partial<Settings>;

export interface LoadSettingsInput {
  flags?: SettingsFlags;
  env?: NodeJS.ProcessEnv;
  paths: Pick<AppPaths, 'config' | 'downloads'>;
}

/** Reads the config file, then the environment, then the flags; throws ConfigError on any bad value. */
export function loadSettings({ flags = {}, env = process.env, paths }: LoadSettingsInput): Settings {
  const home = env.HOME || homedir();
  const fromFile = readConfigFile(join(paths.config, CONFIG_FILE_NAME), home);
  const fromEnv = readEnv(env, home);
  const fromFlags = readFlags(flags, home);
  const merged: SettingsLayer = { ...fromFile, ...fromEnv, ...fromFlags };
  // A base URL belongs to the provider in effect where it was set: TEMPMAIL_BASE_URL (a tempmail service)
  // must not become mail.tm's address because a flag then said --provider mailtm.
  const layers = [fromFile, fromEnv, fromFlags];
  const urlLayer = layers.map((l) => l.baseUrl !== undefined).lastIndexOf(true);
  if (urlLayer >= 0) {
    const providerThere = layers.slice(0, urlLayer + 1).reduce<ProviderChoice>((p, l) => l.provider ?? p, 'tempmail');
    if ((merged.provider ?? 'tempmail') !== providerThere) delete merged.baseUrl;
  }
  if (merged.provider === 'auto' && merged.baseUrl !== undefined) {
    throw new ConfigError(
      'a base URL names one provider\'s address; with provider auto, give each its own in config.json: "providers": {"mailtm": {"baseUrl": "..."}}',
    );
  }
  // TempMail.lol's key: the variable beats the file.
  const providers: ProvidersSettings = { ...fromFile.providers };
  const key = env[TEMPMAILLOL_KEY_ENV]?.trim();
  if (key)
    providers.tempmaillol = { ...providers.tempmaillol, apiKey: readSetting(apiKeyText, key, TEMPMAILLOL_KEY_ENV) };
  return {
    providers,
    providerOrder: fromFile.providerOrder ?? [...DEFAULT_PROVIDER_ORDER],
    ...(merged.provider !== undefined ? { provider: merged.provider } : {}),
    ...(merged.baseUrl !== undefined ? { baseUrl: merged.baseUrl } : {}),
    pollIntervalMs: merged.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    bell: merged.bell ?? true,
    serverTz: merged.serverTz ?? 'UTC',
    postEncoding: merged.postEncoding ?? 'form',
    downloadDir: merged.downloadDir ?? resolve(paths.downloads),
  };
}

/** The config file's settings; a missing file is an empty config, anything unreadable or wrong is an error. */
export function readConfigFile(file: string, home = homedir()): SettingsLayer {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    throw new ConfigError(`${file}: cannot be read (${code ?? 'unknown error'})`);
  }
  keepPrivate(file);
  raw = raw.replace(/^\ufeff/, '');
  // An empty file is what `touch config.json` leaves behind: read it as "nothing configured".
  if (raw.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    const detail = error instanceof Error ? safeLine(error.message, 120) : 'syntax error';
    throw new ConfigError(`${file}: not valid JSON (${detail})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`${file}: must be a JSON object such as {"baseUrl": "https://..."}`);
  }
  const values: Values = {};
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(FILE_KEYS, key)) {
      throw new ConfigError(`${file}: ${unknownText('key', key, Object.keys(FILE_KEYS))}`);
    }
    const k = key as keyof typeof FILE_KEYS;
    (values as Record<string, unknown>)[k] = readSetting(FILE_KEYS[k], value, `${file}: ${key}`);
  }
  return layerOf(values, home);
}

/** What a source gave, as settings: the interval in milliseconds, the download dir absolute. */
function layerOf({ pollIntervalSeconds, downloadDir, ...rest }: Values, home: string): SettingsLayer {
  const out: SettingsLayer = rest;
  if (pollIntervalSeconds !== undefined) out.pollIntervalMs = pollIntervalSeconds;
  if (downloadDir !== undefined) out.downloadDir = expandHome(downloadDir, home);
  return out;
}

/**
 * The config file can hold a service URL with a password in it, so it is kept like the saved sessions:
 * 0600 in a 0700 directory. Looser modes are tightened; a file or directory of another user is refused.
 * Symbolic links are followed (dotfile managers link config files), so the target is what is checked.
 */
function keepPrivate(file: string): void {
  const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const [path, mode] of [
    [file, 0o600],
    [dirname(file), 0o700],
  ] as const) {
    let st: Stats;
    try {
      st = statSync(path);
    } catch {
      return; // gone since it was read: nothing to protect
    }
    if (me !== undefined && st.uid !== me) {
      throw new ConfigError(
        `${path}: belongs to another user (uid ${st.uid}); refusing to use it. Remove it or set XDG_CONFIG_HOME to a directory of your own.`,
      );
    }
    if ((st.mode & 0o077) === 0) continue;
    try {
      chmodSync(path, mode);
    } catch {
      // A read-only file system: the file still works; there is nothing more we can do about its mode.
    }
  }
}

function readEnv(env: NodeJS.ProcessEnv, home: string): SettingsLayer {
  // An empty variable (`TEMPMAIL_BASE_URL= cmd`) is the shell's way of unsetting: it is ignored.
  const given = Object.entries(ENV_NAMES).map(([key, name]) => [key, env[name]?.trim() || undefined]);
  return readTexts(Object.fromEntries(given), ENV_NAMES, home);
}

function readFlags({ pollInterval, bell, ...flags }: SettingsFlags, home: string): SettingsLayer {
  // --no-bell is no text: it is false or not given.
  return readTexts(
    { ...flags, pollIntervalSeconds: pollInterval },
    FLAG_NAMES,
    home,
    bell === undefined ? {} : { bell },
  );
}

/** One source's settings (`values` and what it gives as text, read by TEXT); a refusal names the key `names` says. */
function readTexts(
  given: Partial<Record<Key, unknown>>,
  names: Record<Key, string>,
  home: string,
  values: Values = {},
): SettingsLayer {
  for (const key of Object.keys(TEXT) as Key[]) {
    const value = given[key];
    if (value !== undefined) (values as Record<string, unknown>)[key] = readSetting(TEXT[key], value, names[key]);
  }
  return layerOf(values, home);
}
