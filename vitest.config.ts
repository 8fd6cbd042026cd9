import { configDefaults, defineConfig } from 'vitest/config';
import { findPostgresBin } from './test/harness/postgres/cluster.ts';

// The Postgres tests (*.pg.test.ts) need Debian's postgresql package (.ci/run installs it). Without it a
// developer's run says loudly that they are left out; CI never leaves them out: it fails instead.
const pgBin = findPostgresBin();
if (!pgBin) {
  const why = 'PostgreSQL (initdb, pg_ctl) is not installed: install the postgresql package (apt-get install postgresql)';
  if (process.env.CI === 'true') throw new Error(`CI: ${why}; the Postgres tests must run in CI.`);
  const bar = '!'.repeat(100);
  // vitest reads this file more than once a run; say it once.
  if (!process.env.TEMPMAIL_PG_SKIP_SAID) console.warn(`\n${bar}\n!! SKIPPED: every Postgres test (test/**/*.pg.test.ts). ${why}.\n${bar}\n`);
  process.env.TEMPMAIL_PG_SKIP_SAID = '1';
}

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Server, SMTP and pty tests each bind their own loopback ports; two workers fit the 2-core machine.
    maxWorkers: 2,
    projects: [
      {
        extends: true as const,
        test: { name: 'main', include: ['test/**/*.test.{ts,tsx}'], exclude: [...configDefaults.exclude, 'test/**/*.pg.test.ts'] },
      },
      ...(pgBin
        ? [
            {
              extends: true as const,
              // One throwaway cluster per run, started only when a test of this project is queued.
              test: { name: 'postgres', include: ['test/**/*.pg.test.ts'], globalSetup: ['test/harness/postgres/global-setup.ts'] },
            },
          ]
        : []),
    ],
  },
});
