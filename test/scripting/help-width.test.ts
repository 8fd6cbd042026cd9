/**
 * Every --help of the built program fits the terminal (issue 37.4): the app's, serve's, admin's and
 * each scripting command's. Not on a terminal (a pipe) no line is over 80 columns; in a pseudo-terminal
 * 60 columns wide, none is over 60. They were written for ~110 columns and wrapped mid-word in an
 * 80-column SSH terminal. What the wrapping keeps (every word, the hanging indent) is
 * test/text/help-wrap.test.ts's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_COMMANDS } from '../../src/scripting/commands-list';
import { spawnApp } from '../e2e/pty-harness';
import { CLI, spawnCli } from '../harness/serve-process';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HELPS: string[][] = [
  ['--help'],
  ['serve', '--help'],
  ['admin', '--help'],
  ['admin', 'sessions', '--help'],
  ...SCRIPT_COMMANDS.map((c) => [c, '--help']),
];

let home: string;
beforeAll(() => {
  if (!existsSync(CLI)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  home = mkdtempSync(join(tmpdir(), 'tempmail-help-'));
}, 120_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = () => ({
  TEMPMAIL_TUI_HOME: home,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'c'),
  TEMPMAIL_BASE_URL: '',
  TEMPMAIL_PROVIDER: '',
});

/** The lines of `text` wider than `width`, with their width: none expected. */
const overWidth = (text: string, width: number) =>
  text
    .split(/\r?\n/)
    .filter((line) => line.length > width)
    .map((line) => `${line.length}: ${line}`);

describe('--help fits the width', () => {
  it('80 columns when stdout is not a terminal', async () => {
    for (const args of HELPS) {
      const proc = spawnCli(args, env());
      expect((await proc.exited).code, args.join(' ')).toBe(0);
      expect(proc.stdout().split('\n').length, args.join(' ')).toBeGreaterThan(5);
      expect(overWidth(proc.stdout(), 80), args.join(' ')).toEqual([]);
    }
  });

  it("the terminal's columns on a terminal (a 60-column pseudo-terminal)", async () => {
    for (const args of HELPS) {
      const app = spawnApp({ args, env: env(), cols: 60, rows: 40 });
      try {
        expect(await app.exited(), args.join(' ')).toBe(0);
        const text = app.raw().toString('utf8');
        expect(text, args.join(' ')).toMatch(/Usage|tempmail-tui/);
        expect(overWidth(text, 60), args.join(' ')).toEqual([]);
        // Fitted to 60, not merely under 80: some lines use the room.
        expect(
          text.split(/\r?\n/).some((line) => line.length > 50),
          args.join(' '),
        ).toBe(true);
      } finally {
        app.kill();
      }
    }
  }, 60_000);
});
