/**
 * The node-postgres pool of the Postgres store, and the two ways the store uses a connection: one
 * statement (`query`) or one transaction (`transaction`). The pool reconnects by itself: while the
 * database is down every call fails fast (a connect timeout of 5 s, a refused connection at once) and the
 * service answers 503/451; once it is back the next call gets a fresh connection.
 *
 * The password comes from the URL, PGPASSWORD, or the password file (PGPASSFILE, else ~/.pgpass), looked
 * up here with `pgpass` rather than by pg itself, whose built-in lookup is deprecated and says so on stderr.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { parse } from 'pg-connection-string';
import pgpass, { type ConnInfo } from 'pgpass';
import type { StoreLog } from '../../store-log';

export interface PoolOptions {
  url: string;
  /** Most connections this service holds (default 10). */
  max?: number;
  /** One line per connection that failed while idle (the text is scrubbed by the caller's log). */
  log?: StoreLog;
}

/** Connects no one yet: the pool opens connections as they are needed. */
export function createPool(options: PoolOptions): pg.Pool {
  const { password, ...parsed } = parse(options.url);
  const fromEnv = process.env.PGPASSWORD;
  // pg calls a password function with the connection's parameters (defaults and PG* variables applied),
  // which its types do not say.
  const fromFile = ((info: ConnInfo) =>
    new Promise<string | undefined>((resolve) => pgpass(info, resolve))) as unknown as () => Promise<string>;
  const pool = new pg.Pool({
    ...(parsed as pg.PoolConfig),
    port: parsed.port ? Number(parsed.port) : undefined,
    host: parsed.host ?? undefined,
    database: parsed.database ?? undefined,
    password: password || fromEnv || fromFile,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: parsed.application_name ?? 'tempmail-tui',
  });
  // A connection that dies while idle (the database restarted) is dropped by the pool; without a
  // listener the 'error' event would end the process.
  pool.on('error', (error) =>
    options.log?.(`database connection lost while idle: ${error.message}`, {
      level: 'warn',
      event: 'storage.connection_lost',
    }),
  );
  return pool;
}

/** Runs `work` on one connection; a connection that failed under it is closed, not reused. */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out connection has no listener of the pool's: an error between two statements would
  // otherwise be thrown as uncaught.
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.off('error', onError);
    // Released with an error, the connection is destroyed: after a failure its state is not known.
    client.release(broken);
  }
}

/** Names of the statements prepared so far, by text (the texts are the code's own: a bounded set). */
const names = new Map<string, string>();

/**
 * `text` as a named statement: each connection parses and plans it once, then only binds and runs it.
 * An unnamed statement is parsed and planned at every call, several times the database's CPU of a
 * prepared one for a one-row lookup (docs/performance.md, issue 28). The name is a hash of the text, so
 * one name never stands for two texts.
 */
export function prepared(text: string, values: unknown[] = []): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    name = `tempmail_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

/** A statement on any connection of the pool, prepared (see prepared()). */
export async function query<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  return (await pool.query<R>(prepared(text, values))).rows;
}

/**
 * Runs `work` in a transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws or
 * returns `rollback` (with `value`). The COMMIT itself goes through `commit`, so a caller can tell a
 * COMMIT that failed (its outcome unknown) from a failure before it (nothing happened).
 */
export async function transaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<{ value: T; rollback?: boolean }>,
  commit: (client: pg.PoolClient) => Promise<void> = async (c) => void (await c.query('COMMIT')),
): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    let outcome: { value: T; rollback?: boolean };
    try {
      outcome = await work(client);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    if (outcome.rollback) await client.query('ROLLBACK');
    else await commit(client);
    return outcome.value;
  });
}
