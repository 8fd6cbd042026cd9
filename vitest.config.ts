import { resolve } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { findDovecot } from './test/harness/dovecot/dovecot.ts';
import { findDebianProgram } from './test/harness/debian-program.ts';
import { findPostgresBin } from './test/harness/postgres/cluster.ts';
// @ts-expect-error: a plain .mjs build script without types
import { INK_STAND_INS, isInkFile, root, STRING_WIDTH } from './scripts/build-config.mjs';

// The Postgres tests (*.pg.test.ts) need Debian's postgresql package (.ci/run installs it). Without it a
// developer's run says loudly that they are left out; CI never leaves them out: it fails instead.
const pgBin = findPostgresBin();
if (!pgBin) {
  const why =
    'PostgreSQL (initdb, pg_ctl) is not installed: install the postgresql package (apt-get install postgresql)';
  if (process.env.CI === 'true') throw new Error(`CI: ${why}; the Postgres tests must run in CI.`);
  const bar = '!'.repeat(100);
  // vitest reads this file more than once a run; say it once.
  if (!process.env.TEMPMAIL_PG_SKIP_SAID)
    console.warn(`\n${bar}\n!! SKIPPED: every Postgres test (test/**/*.pg.test.ts). ${why}.\n${bar}\n`);
  process.env.TEMPMAIL_PG_SKIP_SAID = '1';
}

// The IMAP tests (*.imap.test.ts, and *.imap.pg.test.ts with Postgres) need Debian's dovecot-imapd
// package (.ci/run installs it): the same rule, loud without it on a developer's machine, fatal in CI.
const dovecot = findDovecot();
if (!dovecot) {
  const why = 'Dovecot is not installed: install the dovecot-imapd package (apt-get install dovecot-imapd)';
  if (process.env.CI === 'true') throw new Error(`CI: ${why}; the IMAP tests must run in CI.`);
  const bar = '!'.repeat(100);
  if (!process.env.TEMPMAIL_DOVECOT_SKIP_SAID)
    console.warn(
      `\n${bar}\n!! SKIPPED: every IMAP test (test/**/*.imap.test.ts, *.imap.pg.test.ts). ${why}.\n${bar}\n`,
    );
  process.env.TEMPMAIL_DOVECOT_SKIP_SAID = '1';
}
const IMAP_TESTS = ['test/**/*.imap.test.ts', 'test/**/*.imap.pg.test.ts'];

// The nginx test (the shipped site in a real nginx) needs Debian's nginx-light package (.ci/run installs
// it): the same rule, loud without it on a developer's machine, fatal in CI.
const NGINX_TESTS = ['test/server/nginx-site.test.ts', 'test/server/postgres/nginx-two-upstreams.pg.test.ts'];
const nginxLookup = findDebianProgram('nginx', 'nginx-light');
const nginx = nginxLookup.path !== undefined;
if (!nginx) {
  const why = nginxLookup.missing;
  if (process.env.CI === 'true') throw new Error(`CI: ${why}; the nginx test must run in CI.`);
  const bar = '!'.repeat(100);
  if (!process.env.TEMPMAIL_NGINX_SKIP_SAID)
    console.warn(`\n${bar}\n!! SKIPPED: the nginx test (${NGINX_TESTS.join(', ')}). ${why}.\n${bar}\n`);
  process.env.TEMPMAIL_NGINX_SKIP_SAID = '1';
}

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  // As in the shipped build (scripts/build-config.mjs): Ink and its helpers measure text with our
  // src/text/terminal-width.ts. They are run through Vite (inlined) so that the alias reaches them.
  resolve: { alias: { 'string-width': resolve(root, STRING_WIDTH) } },
  // And Ink's own imports of react-reconciler and quick-lru get their stand-ins (INK_STAND_INS there).
  plugins: [
    {
      name: 'ink-stand-ins',
      enforce: 'pre' as const,
      resolveId(source: string, importer: string | undefined) {
        const standIn = (INK_STAND_INS as Record<string, string>)[source];
        return standIn && isInkFile(importer) ? resolve(root, standIn) : null;
      },
    },
  ],
  test: {
    server: {
      deps: { inline: [/node_modules\/(ink|wrap-ansi|slice-ansi|cli-truncate|widest-line|ink-testing-library)\//] },
    },
    // Tests never reach the developer's own tmux, display or clipboard: the session's variables go first.
    setupFiles: ['test/harness/scrub-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Server, SMTP and pty tests each bind their own loopback ports; two workers fit the 2-core machine.
    maxWorkers: 2,
    projects: [
      {
        extends: true as const,
        test: {
          name: 'main',
          include: ['test/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, 'test/**/*.pg.test.ts', ...IMAP_TESTS, ...(nginx ? [] : NGINX_TESTS)],
        },
      },
      ...(dovecot
        ? [
            {
              extends: true as const,
              // Each file starts its own throwaway Dovecot (test/harness/dovecot/dovecot.ts).
              test: { name: 'imap', include: ['test/**/*.imap.test.ts'] },
            },
          ]
        : []),
      ...(pgBin
        ? [
            {
              extends: true as const,
              // One throwaway cluster per run, started only when a test of this project is queued.
              test: {
                name: 'postgres',
                include: ['test/**/*.pg.test.ts'],
                exclude: [
                  ...configDefaults.exclude,
                  ...(dovecot ? [] : ['test/**/*.imap.pg.test.ts']),
                  ...(nginx ? [] : NGINX_TESTS),
                ],
                globalSetup: ['test/harness/postgres/global-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
