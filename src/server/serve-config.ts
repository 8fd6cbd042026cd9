/**
 * Builds a ServerConfig for `tempmail-tui serve` from defaults < config file < flags, validating every
 * value so a typo is a clear message (exit 2), not a server that starts wrong.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { safeLine } from '../text/safe-text';
import { DuplicateKeyError, parseJsonStrict } from './strict-json';
import { defaultServerConfig, type ExtmailAccountConfig, type ServerConfig } from './server-config';
import { DATABASE_URL } from './store/postgres/database-url';

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
    throw new UsageError(`${where}: ${show(value)} is not name@provider (optionally :dots or :nodots; no + in the name)`);
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

const YEAR_SECONDS = 366 * 24 * 3600;
const MAX_INT = 2 ** 31 - 1;

type Setter = (config: ServerConfig, value: unknown, where: string) => void;

/** A database URL; the refusal never quotes it (it may carry a password). */
function databaseUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || !DATABASE_URL.test(value.trim())) {
    throw new UsageError(`${where}: expected a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)`);
  }
  return value.trim();
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new UsageError(`${where}: expected a list of strings`);
  return value as string[];
}

function hostName(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${where}: expected a host name or address`);
  return value.trim();
}

function filePath(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${where}: expected a file path`);
  return resolve(value);
}

/** Every key a config file may hold (ServerConfig in camelCase, plus lifetimeMinutes). */
const FILE_KEYS: Record<string, Setter> = {
  host: (c, v, w) => (c.host = hostName(v, w)),
  httpHost: (c, v, w) => (c.httpHost = hostName(v, w)),
  smtpHost: (c, v, w) => (c.smtpHost = hostName(v, w)),
  trustProxy: (c, v, w) => {
    if (typeof v !== 'boolean') throw new UsageError(`${w}: expected true or false`);
    c.trustProxy = v;
  },
  httpPort: (c, v, w) => (c.httpPort = parseIntIn(v, 0, 65535, w)),
  smtpPort: (c, v, w) => (c.smtpPort = parseIntIn(v, 0, 65535, w)),
  dataDir: (c, v, w) => {
    if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`${w}: expected a directory path`);
    c.dataDir = resolve(v);
  },
  databaseUrl: (c, v, w) => (c.databaseUrl = databaseUrl(v, w)),
  databasePoolSize: (c, v, w) => (c.databasePoolSize = parseIntIn(v, 1, 1000, w)),
  domains: (c, v, w) => (c.domains = stringList(v, w).map((d) => parseDomain(d, w))),
  extmailAccounts: (c, v, w) => {
    if (!Array.isArray(v)) throw new UsageError(`${w}: expected a list`);
    c.extmailAccounts = v.map((item: unknown) => {
      if (typeof item === 'string') return parseExtmailAccount(item, w);
      const o = item as { email?: unknown; dotInsensitive?: unknown } | null;
      if (!o || typeof o.email !== 'string' || (o.dotInsensitive !== undefined && typeof o.dotInsensitive !== 'boolean')) {
        throw new UsageError(`${w}: each account is "name@provider" or {"email": "...", "dotInsensitive": true|false}`);
      }
      const parsed = parseExtmailAccount(o.email, w);
      return { email: parsed.email, dotInsensitive: o.dotInsensitive ?? parsed.dotInsensitive };
    });
  },
  lifetimeSeconds: (c, v, w) => (c.lifetimeSeconds = parseIntIn(v, 1, YEAR_SECONDS, w)),
  lifetimeMinutes: (c, v, w) => (c.lifetimeSeconds = lifetimeFromMinutes(v, w)),
  maxMessageBytes: (c, v, w) => (c.maxMessageBytes = parseIntIn(v, 1024, 1024 * 1024 * 1024, w)),
  maxRecipients: (c, v, w) => (c.maxRecipients = parseIntIn(v, 1, 10_000, w)),
  inboxLimit: (c, v, w) => (c.inboxLimit = parseIntIn(v, 1, 1_000_000, w)),
  createPerMinute: (c, v, w) => (c.createPerMinute = parseIntIn(v, 1, 1_000_000, w)),
  trustedProxies: (c, v, w) => {
    const list = stringList(v, w).map((a) => a.trim());
    const bad = list.find((a) => isIP(a) === 0);
    if (bad !== undefined) throw new UsageError(`${w}: ${show(bad)} is not an IP address`);
    c.trustedProxies = list;
  },
  purgeIntervalMs: (c, v, w) => (c.purgeIntervalMs = parseIntIn(v, 1000, MAX_INT, w)),
  smtpSocketTimeoutMs: (c, v, w) => (c.smtpSocketTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  smtpSessionTimeoutMs: (c, v, w) => (c.smtpSessionTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  smtpDataTimeoutMs: (c, v, w) => (c.smtpDataTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  smtpInflightBytes: (c, v, w) => (c.smtpInflightBytes = parseIntIn(v, 1024, Number.MAX_SAFE_INTEGER, w)),
  tlsCert: (c, v, w) => (c.tlsCertFile = filePath(v, w)),
  tlsKey: (c, v, w) => (c.tlsKeyFile = filePath(v, w)),
  httpHeadersTimeoutMs: (c, v, w) => (c.httpHeadersTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  httpRequestTimeoutMs: (c, v, w) => (c.httpRequestTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
};

/** Minutes (fractions allowed) to whole seconds, at least one. */
export function lifetimeFromMinutes(value: unknown, where: string): number {
  const seconds = Math.round(parsePositive(value, where) * 60);
  if (seconds < 1 || seconds > YEAR_SECONDS) throw new UsageError(`${where}: lifetime must be from 1 second to a year`);
  return seconds;
}

/**
 * Applies a JSON config file onto `config` and returns the keys it set. Unknown keys are refused: a
 * misspelt key must not be ignored.
 */
export function applyConfigFile(config: ServerConfig, path: string): Set<string> {
  const where = `(in ${safeLine(resolve(path), 300)})`;
  const refuse = (message: string): never => {
    throw new ConfigFileError(`${message} ${where}`, path);
  };
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    refuse(`--config: cannot read the file (${safeLine(code, 40)})`);
  }
  let data: unknown;
  try {
    data = parseJsonStrict(text);
  } catch (error) {
    if (error instanceof DuplicateKeyError) refuse(`--config: the key ${show(error.key)} is given twice`);
    refuse(`--config: the file is not valid JSON (${error instanceof Error ? safeLine(error.message, 160) : 'parse error'})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) refuse('--config: the file must hold a JSON object');
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    keys.add(key);
    const set = Object.hasOwn(FILE_KEYS, key) ? FILE_KEYS[key] : undefined;
    if (!set) refuse(`--config: unknown key ${show(key)} (known: ${Object.keys(FILE_KEYS).join(', ')})`);
    try {
      set!(config, value, `--config ${key}`);
    } catch (error) {
      if (error instanceof UsageError) refuse(error.message);
      throw error;
    }
  }
  return keys;
}

/** The flags of `serve`, as node:util parseArgs returns them. */
export interface ServeFlags {
  host?: string;
  'http-host'?: string;
  'smtp-host'?: string;
  'trust-proxy'?: boolean;
  'http-port'?: string;
  'smtp-port'?: string;
  'data-dir'?: string;
  'database-url'?: string;
  domain?: string[];
  'extmail-account'?: string[];
  'lifetime-minutes'?: string;
  'lifetime-seconds'?: string;
  'max-message-bytes'?: string;
  'max-recipients'?: string;
  'inbox-limit'?: string;
  'create-per-minute'?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  config?: string;
}

/** defaults < config file < environment (TEMPMAIL_DATABASE_URL) < flags. */
export function buildServerConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const config = defaultServerConfig(env);
  const fromFile = flags.config !== undefined ? applyConfigFile(config, flags.config) : new Set<string>();
  if (env.TEMPMAIL_DATABASE_URL !== undefined && env.TEMPMAIL_DATABASE_URL !== '') {
    config.databaseUrl = databaseUrl(env.TEMPMAIL_DATABASE_URL, 'TEMPMAIL_DATABASE_URL');
  }
  const set = (flag: keyof ServeFlags, key: string) => {
    const value = flags[flag];
    if (value !== undefined) FILE_KEYS[key]!(config, value, `--${flag}`);
  };
  set('host', 'host');
  set('http-host', 'httpHost');
  set('smtp-host', 'smtpHost');
  if (flags['trust-proxy']) config.trustProxy = true;
  set('http-port', 'httpPort');
  set('smtp-port', 'smtpPort');
  set('data-dir', 'dataDir');
  set('database-url', 'databaseUrl');
  set('domain', 'domains');
  set('extmail-account', 'extmailAccounts');
  set('lifetime-minutes', 'lifetimeMinutes');
  set('lifetime-seconds', 'lifetimeSeconds');
  set('max-message-bytes', 'maxMessageBytes');
  set('max-recipients', 'maxRecipients');
  set('inbox-limit', 'inboxLimit');
  set('create-per-minute', 'createPerMinute');
  set('tls-cert', 'tlsCert');
  set('tls-key', 'tlsKey');
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    throw new UsageError('give --tls-cert and --tls-key together (or tlsCert and tlsKey in the config file)');
  }
  if (config.databaseUrl !== undefined && (flags['data-dir'] !== undefined || fromFile.has('dataDir'))) {
    // Silently ignoring one of them would leave a user looking for mail in the wrong place.
    throw new UsageError('give --data-dir (dataDir) or --database-url (databaseUrl, TEMPMAIL_DATABASE_URL), not both');
  }
  if (config.domains.length === 0 && config.extmailAccounts.length === 0) {
    throw new UsageError('no domain to serve: give at least one --domain (or an --extmail-account)');
  }
  if (new Set(config.domains).size !== config.domains.length) throw new UsageError('--domain: the same domain is listed twice');
  if (config.httpRequestTimeoutMs < config.httpHeadersTimeoutMs) {
    throw new UsageError('httpRequestTimeoutMs: must be at least httpHeadersTimeoutMs (the whole request includes its headers)');
  }
  return config;
}
