/**
 * CONTRIBUTING's first command, `npm run dev`, runs the source under tsx with no build step: nothing
 * defines the build-time constants there, so the program must not depend on them being defined.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('npm run dev', () => {
  it('prints the version with `npm run dev -- --version`', async () => {
    const env = { ...process.env };
    delete env.CI;
    const { stdout } = await run('npm', ['run', '--silent', 'dev', '--', '--version'], {
      cwd: process.cwd(),
      env,
      timeout: 60_000,
    });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, 70_000);
});
