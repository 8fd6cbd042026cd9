/**
 * The harness scrubs the developer's session (test/harness/scrub-env.ts): run a nested vitest with TMUX,
 * DISPLAY and WAYLAND_DISPLAY set, and a child spawned by its test must see none of them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEVELOPER_SESSION_VARS } from './session-vars';

const run = promisify(execFile);

describe("tests' environment", () => {
  it('has none of the developer session variables, so children cannot reach their tmux, display or clipboard', async () => {
    if (process.env.TEMPMAIL_SCRUB_PROBE === '1') return;
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPMAIL_SCRUB_PROBE: '1' };
    for (const name of DEVELOPER_SESSION_VARS) env[name] = `/leaked/${name}`;
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    const { stdout } = await run(
      'npx',
      ['vitest', 'run', '--project', 'main', 'test/harness/scrub-env-probe.test.ts'],
      { env, timeout: 60_000 },
    );
    expect(stdout).toContain('1 passed');
  }, 70_000);
});
