/**
 * `serve --help` says what docs/server/ssh.md's limits table says: every SSH setting of the config file,
 * with its default (issue 39: "docs and `serve --help` say it").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../pty-harness';

const page = readFileSync(new URL('../../../docs/server/ssh.md', import.meta.url), 'utf8');

describe('serve --help on SSH', () => {
  it('names every SSH setting of the limits table with its default, and the flags', () => {
    const help = execFileSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    const rows = [...page.matchAll(/^\| `(ssh\w+)` \| (\d+) \|/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(rows.length).toBeGreaterThan(3);
    for (const [key, value] of rows) expect(help, key).toContain(`${key} (${value})`);
    for (const flag of ['--ssh-port N', '--ssh-host ADDR', '--ssh-host-key FILE']) expect(help).toContain(flag);
    expect(help).toContain('The login name is ignored');
  });
});
