/**
 * The built entry on a Node older than 22 (the machine's own /usr/bin/node, 20 on the CI image): the
 * app, `serve`, `serve migrate`, `serve --version` and the shipped systemd unit's command line each print
 * one line naming the Node it found, and exit 1, instead of a SyntaxError stack from a bundle that needs 22.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const cli = new URL('../dist/cli.js', import.meta.url).pathname;
const OLD_NODE = '/usr/bin/node';
const oldVersion = existsSync(OLD_NODE)
  ? spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
  : '';
const isOld = oldVersion !== '' && Number(oldVersion.split('.')[0]) < 22;

describe.skipIf(!isOld)(`dist/cli.js on Node ${oldVersion}`, () => {
  it.each([[[]], [['serve']], [['serve', 'migrate']], [['serve', '--version']], [['--version']]])(
    '%j prints one line and exits 1',
    (args) => {
      const run = spawnSync(OLD_NODE, [cli, ...args], { encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe(`tempmail-tui needs Node.js 22 or newer (this is ${oldVersion})\n`);
      expect(run.stdout).toBe('');
      expect(run.status).toBe(1);
    },
  );
});

describe.skipIf(!isOld)(`scripts/deploy/tempmail-tui.service on Node ${oldVersion}`, () => {
  it('its ExecStart, with that Node in the place of the one it names, prints the one line and exits 1', () => {
    const unit = readFileSync(new URL('../scripts/deploy/tempmail-tui.service', import.meta.url), 'utf8');
    const execStart = /^ExecStart=((?:.*\\\n)*.*)$/m.exec(unit)![1]!.replace(/\\\n/g, ' ');
    const [node, entry, ...args] = execStart.split(/\s+/).filter(Boolean);
    expect(node).toMatch(/\/node$/);
    expect(entry).toMatch(/\/tempmail-tui\/dist\/cli\.js$/);
    const run = spawnSync(OLD_NODE, [cli, ...args], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe(`tempmail-tui needs Node.js 22 or newer (this is ${oldVersion})\n`);
    expect(run.stdout).toBe('');
    expect(run.status).toBe(1);
  });
});
