/**
 * What the SSH front keeps with the service's data: its host key and each key user's addresses and read
 * marks (the app saves no settings of its own), as text under a name. Three places, as the service's own
 * store: a directory of 0600 files in the data dir (`<data dir>/ssh/`), a table of the database (created
 * here, so the store's contract does not grow; every instance reads the same rows), or memory (a service
 * with no data).
 */
import { readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ServerConfig } from '../config/server-config';

export interface SshKv {
  get(name: string): Promise<string | undefined>;
  put(name: string, value: string): Promise<void>;
  /** Stores `value` unless the name holds one already; resolves with what the name holds then. */
  insertIfAbsent(name: string, value: string): Promise<string>;
  /** Where a name is kept, for an error line. */
  describe(name: string): string;
  close(): Promise<void>;
}

/** A file name for any entry name (a fingerprint has "/" and "+"). */
const fileName = (name: string) => (/^[a-z-]+$/.test(name) ? name : createHash('sha256').update(name).digest('hex'));

export function fileKv(dataDir: string): SshKv {
  const dir = join(dataDir, 'ssh');
  const path = (name: string) => join(dir, fileName(name));
  const get = async (name: string) => {
    try {
      return await readFile(path(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const put = async (name: string, value: string) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${path(name)}.${process.pid}.tmp`;
    await writeFile(temp, value, { mode: 0o600 });
    await rename(temp, path(name));
  };
  return {
    get,
    put,
    // One service holds a data dir (its lock): no other writer to race.
    async insertIfAbsent(name, value) {
      const kept = await get(name);
      if (kept !== undefined) return kept;
      await put(name, value);
      return value;
    },
    describe: (name) => path(name),
    close: async () => undefined,
  };
}

export function memoryKv(): SshKv {
  const map = new Map<string, string>();
  return {
    get: async (name) => map.get(name),
    put: async (name, value) => void map.set(name, value),
    async insertIfAbsent(name, value) {
      if (!map.has(name)) map.set(name, value);
      return map.get(name)!;
    },
    describe: (name) => `memory (${name})`,
    close: async () => undefined,
  };
}

/**
 * The table, made by the first instance to start. Two starting at once both run CREATE TABLE IF NOT
 * EXISTS, and the loser of that race is told of a duplicate type or table (23505, 42P07): the table is
 * there then, which is all that was asked.
 */
async function createTable(pool: { query(sql: string): Promise<unknown> }): Promise<void> {
  try {
    await pool.query('CREATE TABLE IF NOT EXISTS tempmail_ssh (name text PRIMARY KEY, value text NOT NULL)');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw error;
  }
}

export async function databaseKv(url: string, log: (line: string) => void): Promise<SshKv> {
  const { createPool } = await import('../store/postgres/connection/pool');
  const pool = createPool({ url, max: 2, log });
  try {
    await createTable(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const get = async (name: string) =>
    (await pool.query<{ value: string }>('SELECT value FROM tempmail_ssh WHERE name = $1', [name])).rows[0]?.value;
  return {
    get,
    async put(name, value) {
      await pool.query(
        'INSERT INTO tempmail_ssh (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value',
        [name, value],
      );
    },
    async insertIfAbsent(name, value) {
      await pool.query('INSERT INTO tempmail_ssh (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
        name,
        value,
      ]);
      return (await get(name)) ?? value;
    },
    describe: (name) => `the database's tempmail_ssh table (${name})`,
    close: () => pool.end(),
  };
}

/** The place `config` keeps its data in. */
export function openSshKv(
  config: Pick<ServerConfig, 'databaseUrl' | 'dataDir'>,
  log: (line: string) => void,
): Promise<SshKv> {
  if (config.databaseUrl !== undefined) return databaseKv(config.databaseUrl, log);
  return Promise.resolve(config.dataDir ? fileKv(config.dataDir) : memoryKv());
}
