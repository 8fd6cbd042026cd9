/**
 * The shipped binary, `node dist/cli.js`, answers --version with package.json's version and --help with
 * every scripting command, the way a user first meets it. Built here when dist/ is missing (npm test
 * builds it first). Speed is measured in bench/, not here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_COMMANDS } from '../../src/scripting/commands-list';
import { CLI, spawnCli } from '../harness/serve-process';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
}, 120_000);

// No settings or service from the developer's environment: none is needed to print help or the version.
const env = { TEMPMAIL_BASE_URL: '', TEMPMAIL_TUI_HOME: '/nonexistent/tempmail-tui-home' };

async function cli(args: string[]) {
  const proc = spawnCli(args, env);
  const { code, signal } = await proc.exited;
  return { code, signal, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('node dist/cli.js', () => {
  it("--version and -V print package.json's version, exactly, and exit 0", async () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-V']) {
      expect(await cli([flag]), flag).toEqual({ code: 0, signal: null, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });

  it('--help exits 0 and lists every scripting command', async () => {
    const help = await cli(['--help']);
    expect(help).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(help.stdout).toContain(`tempmail-tui ${pkg.version}`);
    expect(SCRIPT_COMMANDS.length).toBeGreaterThan(0);
    for (const command of SCRIPT_COMMANDS) {
      // A usage line of its own: "  tempmail-tui wait ...", not just the word somewhere in the text.
      expect(help.stdout, command).toMatch(new RegExp(`^ +tempmail-tui ${command}\\b`, 'm'));
    }
  });

  it('each scripting command answers --help with its usage, exit 0', async () => {
    for (const command of SCRIPT_COMMANDS) {
      const help = await cli([command, '--help']);
      expect(help, command).toMatchObject({ code: 0, signal: null, stderr: '' });
      expect(help.stdout, command).toMatch(new RegExp(`^Usage: tempmail-tui ${command}\\b`));
    }
  });
});
