/**
 * vitest global setup of the `postgres` project (vitest.config.ts): one throwaway cluster for the whole
 * run, started only when a Postgres test is queued, removed after. Tests reach it through
 * database.ts (inject('postgres')).
 */
import type { TestProject } from 'vitest/node';
import { findPostgresBin, startCluster, stopCluster, type ClusterInfo } from './cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ClusterInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const bin = findPostgresBin();
  // vitest.config.ts only defines this project where the binaries exist.
  if (!bin) throw new Error('PostgreSQL binaries not found (install the postgresql package)');
  const cluster = await startCluster(bin);
  project.provide('postgres', cluster);
  return () => stopCluster(cluster);
}
