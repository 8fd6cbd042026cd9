/**
 * What each of `serve`'s settings takes: one valibot schema per key, read from a --config file's JSON value
 * and from a flag's string alike (serve-config.ts), so a key's rules and its refusals are written once. Each
 * schema gives its own words (valibot's never reach the user: config-values.ts, readBy).
 */
import { isIP } from 'node:net';
import * as v from 'valibot';
import { DATABASE_URL } from '../store/postgres/connection/database-url';
import { parseAccountEntry } from '../imap/account-config';
import { DOMAIN, intIn, jsonPath, pathTo, readBy, show, strictObject, text } from './config-values';
import type { ServerConfig } from './server-config';

const YEAR_SECONDS = 366 * 24 * 3600;
const MAX_INT = 2 ** 31 - 1;

/** Keys a person writes that set a setting of another name; every other key sets its own. */
export const RENAMED = {
  tlsCert: 'tlsCertFile',
  tlsKey: 'tlsKeyFile',
  sshHostKey: 'sshHostKeyFile',
  lifetimeMinutes: 'lifetimeSeconds',
} as const;
type Sets<K> = K extends keyof typeof RENAMED ? (typeof RENAMED)[K] : K;

/** Each key's schema gives what the setting it sets holds: a misspelt key or a wrong output does not compile. */
type Schemas<T> = { [K in keyof T]: v.GenericSchema<unknown, ServerConfig[Sets<K> & keyof ServerConfig]> };
const typed = <T extends Schemas<T>>(schemas: T): T => schemas;

const port = intIn(0, 65535);
const ms = intIn(1000, MAX_INT);
const host = text('a host name or address');
const yesNo = v.boolean('expected true or false');
const LIST = 'expected a list of strings';

const domains = v.array(
  v.pipe(
    v.string(LIST),
    v.check(
      (d) => DOMAIN.test(d.trim().toLowerCase()),
      (i) => `${show(i.input)} is not a domain name`,
    ),
    v.transform((d) => d.trim().toLowerCase()),
  ),
  LIST,
);

const ipAddresses = v.array(
  v.pipe(
    v.string(LIST),
    v.trim(),
    v.check(
      (a) => isIP(a) !== 0,
      (i) => `${show(i.input)} is not an IP address`,
    ),
  ),
  LIST,
);

// The value is never shown: a database URL may hold a password.
const DB_URL = 'expected a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)';
export const databaseUrl = v.pipe(v.string(DB_URL), v.trim(), v.regex(DATABASE_URL, DB_URL));

/** Minutes (fractions allowed, from a flag's string or a JSON number) to whole seconds, at least one. */
const minutes = v.pipe(
  v.custom<number | string>(
    (m) => {
      const n = typeof m === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(m) ? Number(m) : m;
      return typeof n === 'number' && Number.isFinite(n) && n > 0;
    },
    (i) => `expected a positive number, got ${show(i.input)}`,
  ),
  v.transform((m) => Math.round(Number(m) * 60)),
  v.check((s) => s >= 1 && s <= YEAR_SECONDS, 'lifetime must be from 1 second to a year'),
);

/** "host:port" ("[::1]:9025" for IPv6) of a listener. */
const LISTEN = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/;
const listenAddress = v.pipe(
  v.custom<string>(
    (a) => typeof a === 'string' && LISTEN.test(a.trim()),
    (i) => `expected HOST:PORT (e.g. 127.0.0.1:9025, [::1]:9025), got ${show(i.input)}`,
  ),
  v.transform((a) => LISTEN.exec(a.trim())!),
  v.transform((m) => ({ host: m[1] ?? m[2]!, port: readBy(port, m[3], '') })),
);

const TOKEN_NAME = 'expected 1 to 64 letters, digits, dots, dashes or underscores';

/** `[{"name": "alice", "file": "/etc/tempmail-tui/alice.token"}, ...]`: names unique, as the log shows them. */
const namedTokenFiles = v.pipe(
  v.array(
    strictObject(
      {
        name: v.pipe(
          v.string((i) => `${TOKEN_NAME}, got ${show(i.input)}`),
          v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, (i) => `${TOKEN_NAME}, got ${show(i.input)}`),
        ),
        file: pathTo('a file path'),
      },
      'expected {"name": ..., "file": ...}',
    ),
    'expected a list of {"name": ..., "file": ...}',
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const names = dataset.value.map((t) => t.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) addIssue({ message: `the name ${show(twice)} is given twice` });
  }),
);

/**
 * Every key a config file may hold, in the order `unknown key` lists them: ServerConfig's keys in
 * camelCase, a few of them renamed (RENAMED). `env` is where an account's passwordEnv must be set.
 */
export function settingSchemas(env: NodeJS.ProcessEnv) {
  return typed({
    host,
    httpHost: host,
    smtpHost: host,
    trustProxy: yesNo,
    httpPort: port,
    smtpPort: port,
    dataDir: pathTo('a directory path'),
    databaseUrl,
    databasePoolSize: intIn(1, 1000),
    domains,
    // Each account reads itself (the refusals name it by its address), after `where` (readBy).
    extmailAccounts: v.pipe(
      v.array(v.unknown(), 'expected a list'),
      v.transform((list) => list.map((item) => parseAccountEntry(item, '', env))),
    ),
    lifetimeSeconds: intIn(1, YEAR_SECONDS),
    lifetimeMinutes: minutes,
    maxMessageBytes: intIn(1024, 1024 * 1024 * 1024),
    maxRecipients: intIn(1, 10_000),
    inboxLimit: intIn(1, 1_000_000),
    createPerMinute: intIn(0, 1_000_000),
    trustedProxies: ipAddresses,
    purgeIntervalMs: ms,
    smtpSocketTimeoutMs: ms,
    smtpSessionTimeoutMs: ms,
    smtpDataTimeoutMs: ms,
    smtpInflightBytes: intIn(1024, Number.MAX_SAFE_INTEGER),
    tlsCert: pathTo('a file path'),
    tlsKey: pathTo('a file path'),
    httpHeadersTimeoutMs: ms,
    httpRequestTimeoutMs: ms,
    // Limits (docs/server/operations.md). 0 turns a per-client rate or a cap off.
    smtpMaxConnections: intIn(1, 100_000),
    smtpConnectionsPerClient: intIn(0, 100_000),
    smtpMessagesPerMinute: intIn(0, 1_000_000_000),
    smtpRecipientsPerMinute: intIn(0, 1_000_000_000),
    httpRequestsPerMinute: intIn(0, 1_000_000_000),
    httpMaxConnections: intIn(1, 1_000_000),
    httpConnectionsPerClient: intIn(0, 1_000_000),
    maxStoredMessages: intIn(0, Number.MAX_SAFE_INTEGER),
    maxStoredBytes: intIn(0, Number.MAX_SAFE_INTEGER),
    storageUsageIntervalMs: ms,
    metrics: yesNo,
    metricsListen: listenAddress,
    logFormat: v.picklist(['text', 'json'], (i) => `expected "text" or "json", got ${show(i.input)}`),
    eventStreamsPerSession: intIn(1, 1000),
    eventStreamsTotal: intIn(0, 1_000_000),
    eventStreamsPerClient: intIn(0, 1_000_000),
    eventsHeartbeatMs: ms,
    adminTokenFile: pathTo('a file path'),
    adminListen: listenAddress,
    // Said as JSON would say the place: `adminTokens[1].name`.
    adminTokens: v.pipe(
      v.unknown(),
      v.transform((tokens) => readBy(namedTokenFiles, tokens, '', jsonPath)),
    ),
    sshPort: port,
    sshHost: host,
    sshHostKey: pathTo('a file path'),
    sshMaxConnections: intIn(1, 100_000),
    sshConnectionsPerClient: intIn(1, 100_000),
    sshSessionsPerKey: intIn(1, 1000),
    sshIdleTimeoutMs: ms,
    sshHandshakeTimeoutMs: ms,
    sshAuthTimeoutMs: ms,
  });
}
