/**
 * Builds a ServerConfig for `tempmail-tui serve` from defaults < config file < flags, each value read by its
 * key's schema (setting-schemas.ts) so a typo is a clear message (exit 2), not a server that starts wrong.
 */
import { resolve } from 'node:path';
import type { parseArgs } from 'node:util';
import { safeLine } from '../../text/safe-text';
import { ConfigFileError, readBy, show, UsageError } from './config-values';
import { OperatorFileError, readOperatorFileSync } from '../../platform/operator-file';
import { DuplicateKeyError, parseJsonStrict } from './strict-json';
import { unknownKey } from './unknown-key';
import { defaultServerConfig, type ServerConfig } from './server-config';
import { databaseUrl, RENAMED, settingSchemas } from './setting-schemas';

export { ConfigFileError, UsageError } from './config-values';

/** A config file holds settings and account entries: 1 MiB is thousands of accounts. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

type Schemas = ReturnType<typeof settingSchemas>;

/** Sets the setting `key` names (RENAMED) to `value` as its schema reads it; a refusal starts with `where`. */
function put(config: ServerConfig, schemas: Schemas, key: keyof Schemas, value: unknown, where: string): void {
  const setting = Object.hasOwn(RENAMED, key) ? RENAMED[key as keyof typeof RENAMED] : key;
  // The schemas' types match the settings they set (setting-schemas.ts).
  (config as unknown as Record<string, unknown>)[setting] = readBy(schemas[key], value, where);
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
  const schemas = settingSchemas(env);
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    keys.add(key);
    if (!Object.hasOwn(schemas, key))
      refuse(`--config: ${unknownKey(key, Object.keys(schemas), 'docs/server/README.md, "Settings"')}`);
    try {
      put(config, schemas, key as keyof Schemas, value, `--config ${key}`);
    } catch (error) {
      if (error instanceof UsageError) refuse(error.message);
      throw error;
    }
  }
  return keys;
}

/** The options of `serve`, as node:util parseArgs takes them (the scripts/deploy/ files are tested against them). */
export const SERVE_OPTIONS = {
  host: { type: 'string' },
  'http-host': { type: 'string' },
  'smtp-host': { type: 'string' },
  'trust-proxy': { type: 'boolean' },
  'http-port': { type: 'string' },
  'smtp-port': { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  domain: { type: 'string', multiple: true },
  'extmail-account': { type: 'string', multiple: true },
  'lifetime-minutes': { type: 'string' },
  'lifetime-seconds': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'max-recipients': { type: 'string' },
  'inbox-limit': { type: 'string' },
  'create-per-minute': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'admin-token-file': { type: 'string' },
  'admin-listen': { type: 'string' },
  config: { type: 'string' },
  'smtp-max-connections': { type: 'string' },
  'smtp-connections-per-client': { type: 'string' },
  'smtp-messages-per-minute': { type: 'string' },
  'smtp-recipients-per-minute': { type: 'string' },
  'http-requests-per-minute': { type: 'string' },
  'max-stored-messages': { type: 'string' },
  'max-stored-bytes': { type: 'string' },
  metrics: { type: 'boolean' },
  'metrics-listen': { type: 'string' },
  'log-format': { type: 'string' },
  'ssh-port': { type: 'string' },
  'ssh-host': { type: 'string' },
  'ssh-host-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** The flags of `serve`, as node:util parseArgs returns them. */
export type ServeFlags = ReturnType<typeof parseArgs<{ options: typeof SERVE_OPTIONS }>>['values'];

/** The key a flag sets: its name in camelCase, but for the two lists that a flag gives one item of at a time. */
function flagSetting(flag: string): string {
  if (flag === 'domain') return 'domains';
  if (flag === 'extmail-account') return 'extmailAccounts';
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
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
  if (fromEnv) config.databaseUrl = readBy(databaseUrl, env.TEMPMAIL_DATABASE_URL, 'TEMPMAIL_DATABASE_URL');
  const schemas = settingSchemas(env);
  for (const [flag, value] of Object.entries(flags)) {
    const key = flagSetting(flag);
    if (value !== undefined && Object.hasOwn(schemas, key))
      put(config, schemas, key as keyof Schemas, value, `--${flag}`);
  }
  if (config.metricsListen !== undefined) config.metrics = true;
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
