/**
 * A throwaway PostgreSQL cluster for one figure, from the tests' own harness (test/harness/postgres/
 * cluster.ts, which does not depend on vitest), but durable: fsync and full-page writes stay on, so a
 * COMMIT costs what it costs on a real server. It is stopped and its directory removed after the figure.
 *
 * Without Debian's `postgresql` package the figure cannot run: outside CI that is said loudly and the
 * figure gives no keys (undefined); under CI=true it is an error, as for the Postgres tests
 * (vitest.config.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createDatabase,
  findPostgresBin,
  socketUrl,
  startCluster,
  stopCluster,
} from '../../test/harness/postgres/cluster';
import type { RunContext } from '../figures/figure';

export interface BenchDatabase {
  /** The database's URL over the cluster's unix socket (trusted, so there is no password anywhere). */
  url: string;
  /** The postmaster's pid: with its backends (bench/harness/proc.ts treeCpuSplitMs), the database's CPU. */
  pid: number;
}

/** A new durable cluster with one empty database, or undefined (outside CI) without the binaries. */
export async function benchDatabase(ctx: RunContext): Promise<BenchDatabase | undefined> {
  const bin = findPostgresBin();
  if (!bin) {
    const why =
      'PostgreSQL (initdb, pg_ctl) is not installed: install the postgresql package (apt-get install postgresql)';
    if (process.env.CI === 'true') throw new Error(`CI: ${why}; the Postgres figures must run in CI.`);
    const bar = '!'.repeat(100);
    ctx.log(`\n${bar}\n!! SKIPPED: the Postgres figures (checkmail_pg_*, smtp_pg_*). ${why}.\n${bar}`);
    return undefined;
  }
  const cluster = await startCluster(bin, { durable: true });
  ctx.defer(() => stopCluster(cluster));
  ctx.log(`PostgreSQL cluster (fsync on) at ${cluster.socketDir}, port ${cluster.port}`);
  const pid = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { url: socketUrl(cluster, createDatabase(cluster, 'bench')), pid };
}
