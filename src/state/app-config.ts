/**
 * Settings of the app and of the scripting commands. Three layers, the later winning: the config file
 * (`$XDG_CONFIG_HOME/tempmail-tui/config.json`), the environment (TEMPMAIL_*), then command-line flags.
 * A bad value anywhere is a ConfigError that names where it came from and which key, never a silent default.
 */
import { chmodSync, readFileSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  DEFAULT_PROVIDER_ORDER,
  isProviderId,
  PROVIDER_IDS,
  type PostEncoding,
  type ProviderId,
} from '../model/mail-types';
import type { AppPaths } from './paths';
import { safeLine } from '../text/safe-text';
import { ConfigError, expectString, parseBaseUrl, parseBool, parseDir, parseZone, show } from './setting-values';
import {
  checkKey,
  parseOrder,
  parseProvidersKey,
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

type Key = 'provider' | 'baseUrl' | 'pollIntervalSeconds' | 'bell' | 'serverTz' | 'postEncoding' | 'downloadDir';
const FILE_KEYS: readonly string[] = [
  'provider',
  'baseUrl',
  'pollIntervalSeconds',
  'bell',
  'serverTz',
  'postEncoding',
  'downloadDir',
  'providers',
  'providerOrder',
];
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
  if (key) providers.tempmaillol = { ...providers.tempmaillol, apiKey: checkKey(TEMPMAILLOL_KEY_ENV, key) };
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
  const out: SettingsLayer = {};
  for (const [key, value] of Object.entries(data)) {
    if (!FILE_KEYS.includes(key)) {
      throw new ConfigError(`${file}: unknown key ${show(key)} (known keys: ${FILE_KEYS.join(', ')})`);
    }
    const where = `${file}: ${key}`;
    if (key === 'providers') {
      out.providers = parseProvidersKey(where, value);
      continue;
    }
    if (key === 'providerOrder') {
      out.providerOrder = parseOrder(where, value);
      continue;
    }
    switch (key as Key) {
      case 'provider':
        out.provider = parseProvider(where, expectString(where, value, [...PROVIDER_IDS, 'auto'].join(', ')));
        break;
      case 'baseUrl':
        out.baseUrl = parseBaseUrl(where, expectString(where, value, 'an http(s) URL'));
        break;
      case 'pollIntervalSeconds':
        if (typeof value !== 'number') throw badInterval(where, value);
        out.pollIntervalMs = parseInterval(where, value);
        break;
      case 'bell':
        if (typeof value !== 'boolean') throw new ConfigError(`${where} must be true or false, got ${show(value)}`);
        out.bell = value;
        break;
      case 'serverTz':
        out.serverTz = parseZone(where, expectString(where, value, 'a time zone'));
        break;
      case 'postEncoding':
        out.postEncoding = parseEncoding(where, expectString(where, value, ENCODINGS.join(', ')));
        break;
      case 'downloadDir':
        out.downloadDir = parseDir(where, expectString(where, value, 'a directory path'), home);
        break;
    }
  }
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
  const out: SettingsLayer = {};
  // An empty variable (`TEMPMAIL_BASE_URL= cmd`) is the shell's way of unsetting: it is ignored.
  const get = (key: Key): string | undefined => {
    const v = env[ENV_NAMES[key]];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const where = (key: Key) => ENV_NAMES[key];
  const provider = get('provider');
  if (provider !== undefined) out.provider = parseProvider(where('provider'), provider);
  const baseUrl = get('baseUrl');
  if (baseUrl !== undefined) out.baseUrl = parseBaseUrl(where('baseUrl'), baseUrl);
  const poll = get('pollIntervalSeconds');
  if (poll !== undefined) out.pollIntervalMs = parseInterval(where('pollIntervalSeconds'), poll);
  const bell = get('bell');
  if (bell !== undefined) out.bell = parseBool(where('bell'), bell);
  const tz = get('serverTz');
  if (tz !== undefined) out.serverTz = parseZone(where('serverTz'), tz);
  const enc = get('postEncoding');
  if (enc !== undefined) out.postEncoding = parseEncoding(where('postEncoding'), enc);
  const dir = get('downloadDir');
  if (dir !== undefined) out.downloadDir = parseDir(where('downloadDir'), dir, home);
  return out;
}

function readFlags(flags: SettingsFlags, home: string): SettingsLayer {
  const out: SettingsLayer = {};
  const where = (key: Key) => FLAG_NAMES[key];
  if (flags.provider !== undefined) out.provider = parseProvider(where('provider'), flags.provider);
  if (flags.baseUrl !== undefined) out.baseUrl = parseBaseUrl(where('baseUrl'), flags.baseUrl);
  if (flags.pollInterval !== undefined)
    out.pollIntervalMs = parseInterval(where('pollIntervalSeconds'), flags.pollInterval);
  if (flags.bell !== undefined) out.bell = flags.bell;
  if (flags.serverTz !== undefined) out.serverTz = parseZone(where('serverTz'), flags.serverTz);
  if (flags.postEncoding !== undefined) out.postEncoding = parseEncoding(where('postEncoding'), flags.postEncoding);
  if (flags.downloadDir !== undefined) out.downloadDir = parseDir(where('downloadDir'), flags.downloadDir, home);
  return out;
}

function parseProvider(where: string, value: string): ProviderChoice {
  const v = value.trim().toLowerCase();
  if (v === 'auto') return v;
  if (!isProviderId(v))
    throw new ConfigError(`${where} must be one of ${PROVIDER_IDS.join(', ')} or auto, got ${show(value)}`);
  return v;
}

function parseInterval(where: string, value: string | number): number {
  const seconds = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || ms < MIN_POLL_INTERVAL_MS) throw badInterval(where, value);
  if (ms > MAX_POLL_INTERVAL_MS) throw new ConfigError(`${where} must be at most 3600 seconds, got ${show(value)}`);
  return ms;
}

function badInterval(where: string, value: unknown): ConfigError {
  return new ConfigError(`${where} must be a number of seconds >= 1, got ${show(value)}`);
}

function parseEncoding(where: string, value: string): PostEncoding {
  const v = value.trim().toLowerCase();
  const found = ENCODINGS.find((e) => e === v);
  if (!found) throw new ConfigError(`${where} must be one of ${ENCODINGS.join(', ')}, got ${show(value)}`);
  return found;
}
