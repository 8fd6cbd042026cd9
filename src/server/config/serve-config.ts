/**
 * Builds a ServerConfig for `tempmail-tui serve` from defaults < config file < flags, validating every
 * value so a typo is a clear message (exit 2), not a server that starts wrong.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { safeLine } from '../../text/safe-text';
import { array, check, pipe, rawCheck, regex, string, transform } from 'valibot';
import {
  ConfigFileError,
  jsonPath,
  parseDomain,
  parseIntIn,
  parsePositive,
  readBy,
  show,
  strictObject,
  UsageError,
} from './config-values';
import { parseAccountEntry } from '../imap/account-config';
import { OperatorFileError, readOperatorFileSync } from '../../platform/operator-file';
import { DuplicateKeyError, parseJsonStrict } from './strict-json';
import { defaultServerConfig, type ServerConfig } from './server-config';
import { DATABASE_URL } from '../store/postgres/connection/database-url';

export { ConfigFileError, UsageError } from './config-values';

const YEAR_SECONDS = 366 * 24 * 3600;
/** A config file holds settings and account entries: 1 MiB is thousands of accounts. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
const MAX_INT = 2 ** 31 - 1;

type Setter = (config: ServerConfig, value: unknown, where: string, env: NodeJS.ProcessEnv) => void;

/** A database URL; the refusal never quotes it (it may carry a password). */
function databaseUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || !DATABASE_URL.test(value.trim())) {
    throw new UsageError(
      `${where}: expected a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)`,
    );
  }
  return value.trim();
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new UsageError(`${where}: expected a list of strings`);
  return value as string[];
}

function hostName(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`${where}: expected a host name or address`);
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
  extmailAccounts: (c, v, w, env) => {
    if (!Array.isArray(v)) throw new UsageError(`${w}: expected a list`);
    c.extmailAccounts = v.map((item: unknown) => parseAccountEntry(item, w, env));
  },
  lifetimeSeconds: (c, v, w) => (c.lifetimeSeconds = parseIntIn(v, 1, YEAR_SECONDS, w)),
  lifetimeMinutes: (c, v, w) => (c.lifetimeSeconds = lifetimeFromMinutes(v, w)),
  maxMessageBytes: (c, v, w) => (c.maxMessageBytes = parseIntIn(v, 1024, 1024 * 1024 * 1024, w)),
  maxRecipients: (c, v, w) => (c.maxRecipients = parseIntIn(v, 1, 10_000, w)),
  inboxLimit: (c, v, w) => (c.inboxLimit = parseIntIn(v, 1, 1_000_000, w)),
  createPerMinute: (c, v, w) => (c.createPerMinute = parseIntIn(v, 0, 1_000_000, w)),
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
  // Limits (docs/server/operations.md). 0 turns a per-client rate or a cap off.
  smtpMaxConnections: (c, v, w) => (c.smtpMaxConnections = parseIntIn(v, 1, 100_000, w)),
  smtpConnectionsPerClient: (c, v, w) => (c.smtpConnectionsPerClient = parseIntIn(v, 0, 100_000, w)),
  smtpMessagesPerMinute: (c, v, w) => (c.smtpMessagesPerMinute = parseIntIn(v, 0, 1_000_000_000, w)),
  smtpRecipientsPerMinute: (c, v, w) => (c.smtpRecipientsPerMinute = parseIntIn(v, 0, 1_000_000_000, w)),
  httpRequestsPerMinute: (c, v, w) => (c.httpRequestsPerMinute = parseIntIn(v, 0, 1_000_000_000, w)),
  httpMaxConnections: (c, v, w) => (c.httpMaxConnections = parseIntIn(v, 1, 1_000_000, w)),
  httpConnectionsPerClient: (c, v, w) => (c.httpConnectionsPerClient = parseIntIn(v, 0, 1_000_000, w)),
  maxStoredMessages: (c, v, w) => (c.maxStoredMessages = parseIntIn(v, 0, Number.MAX_SAFE_INTEGER, w)),
  maxStoredBytes: (c, v, w) => (c.maxStoredBytes = parseIntIn(v, 0, Number.MAX_SAFE_INTEGER, w)),
  storageUsageIntervalMs: (c, v, w) => (c.storageUsageIntervalMs = parseIntIn(v, 1000, MAX_INT, w)),
  metrics: (c, v, w) => {
    if (typeof v !== 'boolean') throw new UsageError(`${w}: expected true or false`);
    c.metrics = v;
  },
  metricsListen: (c, v, w) => {
    c.metricsListen = listenAddress(v, w);
    c.metrics = true;
  },
  logFormat: (c, v, w) => {
    if (v !== 'text' && v !== 'json') throw new UsageError(`${w}: expected "text" or "json", got ${show(v)}`);
    c.logFormat = v;
  },
  eventStreamsPerSession: (c, v, w) => (c.eventStreamsPerSession = parseIntIn(v, 1, 1000, w)),
  eventStreamsTotal: (c, v, w) => (c.eventStreamsTotal = parseIntIn(v, 0, 1_000_000, w)),
  eventStreamsPerClient: (c, v, w) => (c.eventStreamsPerClient = parseIntIn(v, 0, 1_000_000, w)),
  eventsHeartbeatMs: (c, v, w) => (c.eventsHeartbeatMs = parseIntIn(v, 1000, MAX_INT, w)),
  adminTokenFile: (c, v, w) => (c.adminTokenFile = filePath(v, w)),
  adminListen: (c, v, w) => (c.adminListen = listenAddress(v, w)),
  adminTokens: (c, v, w) => (c.adminTokens = readBy(namedTokenFiles, v, w, jsonPath)),
  sshPort: (c, v, w) => (c.sshPort = parseIntIn(v, 0, 65535, w)),
  sshHost: (c, v, w) => (c.sshHost = hostName(v, w)),
  sshHostKey: (c, v, w) => (c.sshHostKeyFile = filePath(v, w)),
  sshMaxConnections: (c, v, w) => (c.sshMaxConnections = parseIntIn(v, 1, 100_000, w)),
  sshConnectionsPerClient: (c, v, w) => (c.sshConnectionsPerClient = parseIntIn(v, 1, 100_000, w)),
  sshSessionsPerKey: (c, v, w) => (c.sshSessionsPerKey = parseIntIn(v, 1, 1000, w)),
  sshIdleTimeoutMs: (c, v, w) => (c.sshIdleTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  sshHandshakeTimeoutMs: (c, v, w) => (c.sshHandshakeTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
  sshAuthTimeoutMs: (c, v, w) => (c.sshAuthTimeoutMs = parseIntIn(v, 1000, MAX_INT, w)),
};

const TOKEN_NAME = 'expected 1 to 64 letters, digits, dots, dashes or underscores';

/** `[{"name": "alice", "file": "/etc/tempmail-tui/alice.token"}, ...]`: names unique, as the log shows them. */
const namedTokenFiles = pipe(
  array(
    strictObject(
      {
        name: pipe(
          string((i) => `${TOKEN_NAME}, got ${show(i.input)}`),
          regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, (i) => `${TOKEN_NAME}, got ${show(i.input)}`),
        ),
        // Resolved as it was given, as the flags' paths are (filePath).
        file: pipe(
          string('expected a file path'),
          check((path) => path.trim() !== '', 'expected a file path'),
          transform((path) => resolve(path)),
        ),
      },
      'expected {"name": ..., "file": ...}',
    ),
    'expected a list of {"name": ..., "file": ...}',
  ),
  rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const names = dataset.value.map((t) => t.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) addIssue({ message: `the name ${show(twice)} is given twice` });
  }),
);

/** "host:port" ("[::1]:9025" for IPv6) of a listener. */
function listenAddress(value: unknown, where: string): { host: string; port: number } {
  const text = typeof value === 'string' ? value.trim() : '';
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text);
  if (!match)
    throw new UsageError(`${where}: expected HOST:PORT (e.g. 127.0.0.1:9025, [::1]:9025), got ${show(value)}`);
  return { host: match[1] ?? match[2]!, port: parseIntIn(match[3], 0, 65535, where) };
}

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
export function applyConfigFile(config: ServerConfig, path: string, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const where = `(in ${safeLine(resolve(path), 300)})`;
  const refuse = (message: string): never => {
    throw new ConfigFileError(`${message} ${where}`, path);
  };
  let text = '';
  try {
    // Only a regular file of sane size: a FIFO would hang the start, /dev/zero fill the memory.
    text = readOperatorFileSync(path, { maxBytes: CONFIG_FILE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    refuse(`--config: cannot read the file (${safeLine(why, 80)})`);
  }
  let data: unknown;
  try {
    data = parseJsonStrict(text);
  } catch (error) {
    if (error instanceof DuplicateKeyError) refuse(`--config: the key ${show(error.key)} is given twice`);
    refuse(
      `--config: the file is not valid JSON (${error instanceof Error ? safeLine(error.message, 160) : 'parse error'})`,
    );
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    refuse('--config: the file must hold a JSON object');
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    keys.add(key);
    const set = Object.hasOwn(FILE_KEYS, key) ? FILE_KEYS[key] : undefined;
    if (!set) refuse(`--config: unknown key ${show(key)} (known: ${Object.keys(FILE_KEYS).join(', ')})`);
    try {
      set!(config, value, `--config ${key}`, env);
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
  'admin-token-file'?: string;
  'admin-listen'?: string;
  config?: string;
  'smtp-max-connections'?: string;
  'smtp-connections-per-client'?: string;
  'smtp-messages-per-minute'?: string;
  'smtp-recipients-per-minute'?: string;
  'http-requests-per-minute'?: string;
  'max-stored-messages'?: string;
  'max-stored-bytes'?: string;
  metrics?: boolean;
  'metrics-listen'?: string;
  'log-format'?: string;
  'ssh-port'?: string;
  'ssh-host'?: string;
  'ssh-host-key'?: string;
}

/**
 * Where the data lives is one setting with two forms (a data dir or a database URL): the highest source
 * that names either wins (flags > environment > config file), and one source naming both is refused.
 * What the winner overrides is said in `notes` (serve logs them): a user must not look for mail in the
 * wrong place without being told.
 */
function chooseStorage(
  config: ServerConfig,
  flags: ServeFlags,
  fromFile: Set<string>,
  fromEnv: boolean,
  notes: string[],
): void {
  const levels = [
    {
      name: 'the flags',
      dir: flags['data-dir'] !== undefined,
      db: flags['database-url'] !== undefined,
      both: 'give --data-dir or --database-url, not both',
    },
    { name: 'TEMPMAIL_DATABASE_URL', dir: false, db: fromEnv, both: '' },
    {
      name: 'the config file',
      dir: fromFile.has('dataDir'),
      db: fromFile.has('databaseUrl'),
      both: 'give dataDir or databaseUrl in the config file, not both',
    },
  ];
  const winner = levels.find((l) => l.dir || l.db);
  if (!winner) return;
  // Silently ignoring one of them would leave a user looking for mail in the wrong place.
  if (winner.dir && winner.db) throw new UsageError(winner.both);
  const below = levels.slice(levels.indexOf(winner) + 1).filter((l) => (winner.dir ? l.db : l.dir));
  if (winner.dir) config.databaseUrl = undefined;
  for (const l of below) {
    notes.push(
      `storage: ${winner.dir ? 'the data dir' : 'the database'} of ${winner.name} overrides the ${winner.dir ? 'database' : 'data dir'} of ${l.name}`,
    );
  }
}

/**
 * defaults < config file < environment (TEMPMAIL_DATABASE_URL) < flags. `notes` receives what one source
 * overrode of another where it matters (storage), for the log.
 */
export function buildServerConfig(
  flags: ServeFlags,
  env: NodeJS.ProcessEnv = process.env,
  notes: string[] = [],
): ServerConfig {
  const config = defaultServerConfig(env);
  const fromFile = flags.config !== undefined ? applyConfigFile(config, flags.config, env) : new Set<string>();
  const fromEnv = env.TEMPMAIL_DATABASE_URL !== undefined && env.TEMPMAIL_DATABASE_URL !== '';
  if (fromEnv) config.databaseUrl = databaseUrl(env.TEMPMAIL_DATABASE_URL, 'TEMPMAIL_DATABASE_URL');
  const set = (flag: keyof ServeFlags, key: string) => {
    const value = flags[flag];
    if (value !== undefined) FILE_KEYS[key]!(config, value, `--${flag}`, env);
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
  set('admin-token-file', 'adminTokenFile');
  set('admin-listen', 'adminListen');
  set('smtp-max-connections', 'smtpMaxConnections');
  set('smtp-connections-per-client', 'smtpConnectionsPerClient');
  set('smtp-messages-per-minute', 'smtpMessagesPerMinute');
  set('smtp-recipients-per-minute', 'smtpRecipientsPerMinute');
  set('http-requests-per-minute', 'httpRequestsPerMinute');
  set('max-stored-messages', 'maxStoredMessages');
  set('max-stored-bytes', 'maxStoredBytes');
  if (flags.metrics) config.metrics = true;
  set('metrics-listen', 'metricsListen');
  set('log-format', 'logFormat');
  set('ssh-port', 'sshPort');
  set('ssh-host', 'sshHost');
  set('ssh-host-key', 'sshHostKey');
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    throw new UsageError('give --tls-cert and --tls-key together (or tlsCert and tlsKey in the config file)');
  }
  if (config.adminListen !== undefined && config.adminTokenFile === undefined && !config.adminTokens?.length) {
    throw new UsageError(
      '--admin-listen (adminListen) serves the admin API, which needs --admin-token-file (adminTokenFile)',
    );
  }
  if (config.adminTokenFile !== undefined && config.adminTokens?.some((t) => t.name === 'admin')) {
    throw new UsageError(
      'adminTokens: the name "admin" is the token of --admin-token-file (adminTokenFile); give it another',
    );
  }
  chooseStorage(config, flags, fromFile, fromEnv, notes);
  if (config.domains.length === 0 && config.extmailAccounts.length === 0) {
    throw new UsageError('no domain to serve: give at least one --domain (or an --extmail-account)');
  }
  if (new Set(config.domains).size !== config.domains.length)
    throw new UsageError('--domain: the same domain is listed twice');
  const emails = config.extmailAccounts.map((a) => a.email);
  const twice = emails.find((e, i) => emails.indexOf(e) !== i);
  if (twice !== undefined) throw new UsageError(`extmailAccounts: the account ${show(twice)} is listed twice`);
  if (config.httpRequestTimeoutMs < config.httpHeadersTimeoutMs) {
    throw new UsageError(
      'httpRequestTimeoutMs: must be at least httpHeadersTimeoutMs (the whole request includes its headers)',
    );
  }
  return config;
}
