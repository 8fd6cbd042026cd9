/**
 * What a Postgres test file uses: the run's cluster (started by global-setup.ts) and a fresh
 * database per use, dropped after the test. The Postgres tests are `*.pg.test.ts`, run by the
 * `postgres` project of vitest.config.ts.
 */
import pg from 'pg';
import { inject } from 'vitest';
import type { Cleanup } from '../cleanup';
import { socketUrl, TCP_USER, type ClusterInfo } from './cluster';
import { startServeProcess, stopServe, type ServeReady } from '../serve-process';

/** The cluster of this run. */
export function cluster(): ClusterInfo {
  return inject('postgres');
}

let admin: pg.Pool | undefined;
let count = 0;

/** A superuser pool on the cluster's socket (for creating and dropping databases). */
function adminPool(info: ClusterInfo): pg.Pool {
  admin ??= new pg.Pool({ host: info.socketDir, port: info.port, user: 'postgres', database: 'postgres', max: 2 });
  return admin;
}

/** A new empty database; returns its socket URL (dropped with `cleanup` after the test). */
export async function freshDatabase(
  cleanup: Cleanup,
  info: ClusterInfo = cluster(),
): Promise<{ name: string; url: string }> {
  const name = `t${process.pid}_${++count}_${Math.random().toString(36).slice(2, 8)}`;
  await adminPool(info).query(`CREATE DATABASE ${name} OWNER ${TCP_USER}`);
  cleanup.defer(name, (n) => adminPool(info).query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`));
  return { name, url: socketUrl(info, name) };
}

/**
 * Starts the built `serve` on a database URL (ports 0), stopped after the test (SIGTERM, or SIGKILL if
 * it does not stop). `env` reaches the child (PGPASSWORD...).
 */
export async function startInstance(
  cleanup: Cleanup,
  url: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeReady> {
  const proc = await startServeProcess(['--database-url', url, ...args], env);
  return cleanup.defer(proc, async (p) => {
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
    await stopServe(p);
    clearTimeout(timer);
  });
}

/** A small pool on `url` for a test to look at the tables itself; ended after the test. */
export function inspect(cleanup: Cleanup, url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // The database is dropped (WITH FORCE) after the test: a connection cut then is expected.
  pool.on('error', () => undefined);
  return cleanup.defer(pool, (p) => p.end());
}
