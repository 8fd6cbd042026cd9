/**
 * Opens where the service keeps its data: the file store under the data dir (one service per dir, held
 * by service.lock), or the Postgres store on a database that any number of services share. The Postgres
 * code (and pg with it) is loaded only when a database URL is given, so the app's local mode and a
 * file-store `serve` never parse it.
 */
import { acquireDataDirLock, DataDirInUseError, type DataDirLock } from '../../platform/data-lock';
import { FileStore } from '../store/file/file-store';
import { redactDatabaseUrl } from '../store/postgres/connection/database-url';
import type { Store } from '../store/store';
import type { StoreLog } from '../store/store-log';
import type { Logger } from '../observe/log';
import type { ServerConfig } from '../config/server-config';

export interface OpenedStorage {
  store: Store;
  /** Where the data is, for the start-up line: the data dir, or the database URL without its password. */
  where: string;
  /**
   * Whether the start-up purge may run after the listeners are up: the database's sweep is shared and
   * may meet a backlog; the file store purges first, from memory, as it always did.
   */
  purgeInBackground: boolean;
  /** Records where the service listens (the data dir's lock file; nothing for a database). */
  listening(where: { httpUrl: string; smtpHost: string; smtpPort: number }): Promise<void>;
  /** Gives the data dir's lock back (nothing for a database). Idempotent. */
  release(): Promise<void>;
  /** What the lock file is called, for an error line. */
  lockFile?: string;
  /** The database pool's connections now (a database only), for the metrics. */
  poolCounts?: () => { inUse: number; idle: number; waiting: number };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Opens the storage `config` names; throws one line a user can act on. */
export async function openStorage(config: ServerConfig, log: Logger): Promise<OpenedStorage> {
  return config.databaseUrl === undefined ? openDataDir(config, log) : openDatabase(config.databaseUrl, config, log);
}

async function openDataDir(config: ServerConfig, log: (line: string) => void): Promise<OpenedStorage> {
  // The lock comes before the store opens: opening reads the index and tidies crash leftovers, which
  // must not happen under a service that is running on the same dir.
  let lock: DataDirLock;
  try {
    lock = await acquireDataDirLock(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw error;
    throw new Error(`cannot open the data directory ${config.dataDir}: ${describe(error)}`);
  }
  const store = new FileStore(config.dataDir, { log });
  try {
    await store.open();
  } catch (error) {
    await lock.release();
    throw new Error(`cannot open the data directory ${config.dataDir}: ${describe(error)}`);
  }
  const held = lock;
  return {
    store,
    where: config.dataDir,
    purgeInBackground: false,
    listening: (where) => held.listening(where),
    release: () => held.release(),
    lockFile: held.file,
  };
}

async function openDatabase(url: string, config: ServerConfig, log: Logger): Promise<OpenedStorage> {
  const { PostgresStore } = await import('../store/postgres/postgres-store');
  // A line the store marks (its level, its event) is logged as that event; the rest as plain lines.
  const storeLog: StoreLog = (line, note) =>
    note ? log.event({ level: note.level, event: note.event, text: line }) : log(line);
  const store = new PostgresStore({ url, poolSize: config.databasePoolSize, log: storeLog });
  try {
    await store.open();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = describe(error) || (typeof code === 'string' ? code : 'unknown error');
    throw new Error(`cannot open the database ${redactDatabaseUrl(url)}: ${why}`);
  }
  return {
    store,
    where: `database ${redactDatabaseUrl(url)}`,
    purgeInBackground: true,
    poolCounts: () => store.poolCounts(),
    listening: async () => undefined,
    release: async () => undefined,
  };
}
