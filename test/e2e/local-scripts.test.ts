/**
 * The app and the scripting commands share saved addresses, local mode included (issue 37.2): an
 * address the app made on its local service is the one `list` and `wait` use (they reach the app's
 * running service through its data dir's lock), and an address `new` made there is one the app offers
 * to resume. They used to say "no saved address" and "no service configured" (exit 2). All built: the
 * app in a real pseudo-terminal, the commands as processes, with the same temp TEMPMAIL_TUI_HOME.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../harness/serve-process';
import { sendMail } from '../harness/service';
import { waitFor } from '../harness/wait';
import { isConfirm, isPicker, neutralEnv, pickFirstDomain } from './flow';
import { spawnApp, type PtyApp } from './pty-harness';

let app: PtyApp | undefined;
let home: string | undefined;
afterEach(async () => {
  app?.kill();
  if (home) await rm(home, { recursive: true, force: true });
  app = undefined;
  home = undefined;
});

async function script(args: string[], env: NodeJS.ProcessEnv) {
  const proc = spawnCli(args, env);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('local mode: the app and the scripts share saved addresses', () => {
  it('list and wait use the address the app made; the app offers the one new made', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-local-scripts-'));
    const env = { ...neutralEnv(), TEMPMAIL_TUI_HOME: home };
    app = spawnApp({ env, cols: 100, rows: 30 });
    const address = await pickFirstDomain(app);
    const screen = await app.waitForScreen(/via SMTP [\d.]+:\d+/);
    const [, smtpHost, smtpPort] = /via SMTP ([\d.]+):(\d+)/.exec(screen)!;

    const listed = await script(['list'], env);
    expect(listed.stderr).toBe(`No messages yet for ${address}\n`);
    expect(listed.code).toBe(0);

    const waiting = spawnCli(['wait', '--print', 'code', '--timeout', '60'], env);
    await waitFor(() => waiting.stderr().includes(`Waiting for a code at ${address}`), {
      timeoutMs: 20_000,
      message: 'wait to start',
    });
    expect(waiting.stderr()).toContain(
      `Local service (pid ${app.pid()}): send mail to ${address} via SMTP ${smtpHost}:${smtpPort}`,
    );
    await sendMail(
      { smtpHost: smtpHost!, smtpPort: Number(smtpPort) },
      { to: address, subject: 'Your code', text: 'Your verification code is 715402.' },
    );
    expect((await waiting.exited).code).toBe(0);
    expect(waiting.stdout()).toBe('715402\n');

    const made = await script(['new'], env);
    expect(made.code).toBe(0);
    const other = made.stdout.trim();
    expect(other).toMatch(/^[^@\s]+@\S+$/);
    expect(other).not.toBe(address);
    await app.press('n', isConfirm);
    await app.press('y', (s) => isPicker(s) && s.includes(`Resume ${other}`));
  }, 90_000);

  it('new with nothing configured makes the address on the local service, which the app then offers', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-local-new-'));
    const env = { ...neutralEnv(), TEMPMAIL_TUI_HOME: home };
    const made = await script(['new'], env);
    expect(made.stderr).toContain('Local service (this command');
    expect(made.code).toBe(0);
    const address = made.stdout.trim();
    app = spawnApp({ env, cols: 100, rows: 30 });
    await app.waitForScreen((s) => isPicker(s) && s.includes(`Resume ${address}`));
  }, 60_000);
});
