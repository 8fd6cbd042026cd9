/**
 * The scripting commands as a user runs them: the built `node dist/cli.js` in child processes, against
 * the real reference service. Needs `npm run build` first (npm test does it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { spawnCli } from '../harness/serve-process';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { waitFor } from '../harness/wait';

let svc: TestService;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  home = mkdtempSync(join(tmpdir(), 'tempmail-cli-script-'));
  // No settings leak in from the developer's environment: only our temp home and the service.
  env = { TEMPMAIL_TUI_HOME: home, TEMPMAIL_BASE_URL: '', XDG_CONFIG_HOME: join(home, 'xdg') };
});
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await svc.close();
});

async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const proc = spawnCli(args, { ...env, ...extraEnv });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('node dist/cli.js (scripting)', () => {
  it('new, then wait --print code in another process: prints the code that arrives, exit 0', async () => {
    const created = await cli(['new', '--base-url', svc.baseUrl]);
    expect(created.code).toBe(0);
    const email = created.stdout.trim();
    expect(email).toMatch(/@/);
    const token = openSavedSessions({ env }).listLive()[0]!.token;

    const waiting = spawnCli(['wait', '--print', 'code', '--timeout', '30', '--subject', 'verif'], env);
    await waitFor(() => waiting.stderr().includes('Waiting for a code'), {
      timeoutMs: 15_000,
      message: 'wait to start',
    });
    await sendMail(svc, {
      from: 'Shop <hello@shop.test>',
      to: email,
      subject: 'Verify your email',
      html: '<p>Order #123456 is not your code.</p><p>Your verification code: <b>583 107</b></p>',
    });
    const { code } = await waiting.exited;
    expect(code).toBe(0);
    expect(waiting.stdout()).toBe('583107\n');
    for (const out of [created.stdout, created.stderr, waiting.stdout(), waiting.stderr()])
      expect(out).not.toContain(token);
  });

  it('wait exits 1 on timeout; usage errors exit 2; --help exits 0', async () => {
    const timedOut = await cli(['wait', '--timeout', '1']);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain('no matching message within 1 s');
    const usage = await cli(['list', '--no-such-flag']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown option --no-such-flag');
    // Nothing configured: the app's local service, as the app (test/e2e/local-scripts.test.ts).
    const local = await cli(['new'], { TEMPMAIL_TUI_HOME: join(home, 'unconfigured') });
    expect(local.code).toBe(0);
    expect(local.stderr).toContain('Local service (this command');
    const help = await cli(['domains', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tempmail-tui domains');
  });
});
