/**
 * Two app windows in local mode on one machine: the first runs the in-process service, the second
 * borrows it. When the first quits, the second takes the service over (same data, same SMTP port), so
 * it never goes "Offline" for good and mail sent to the address it shows still arrives. Both are the
 * built app in real pseudo-terminals; mail goes in over real SMTP.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { waitFor } from '../harness/wait';
import { isInbox, isPicker, neutralEnv, pickFirstDomain } from './flow';
import { KEYS, SCREEN_TIMEOUT_MS, spawnApp, type PtyApp } from './pty-harness';

const apps: PtyApp[] = [];
let home: string | undefined;
afterEach(async () => {
  for (const app of apps.splice(0)) app.kill();
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

describe('local mode in two windows', () => {
  it('when the window running the service quits, the other takes it over and mail still arrives over SMTP', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-two-'));
    const env = { ...neutralEnv(), TEMPMAIL_TUI_HOME: home };
    const lockFile = join(home, 'data', 'service.lock');
    const first = spawnApp({ env, cols: 100, rows: 30 });
    apps.push(first);
    const port = /Local service: mail is received via SMTP 127\.0\.0\.1:(\d+)/.exec(
      await first.waitForScreen(/Local service: mail is received via SMTP 127\.0\.0\.1:\d+/),
    )![1]!;
    const smtp = { smtpHost: '127.0.0.1', smtpPort: Number(port) };

    const second = spawnApp({ env, cols: 100, rows: 30, args: ['--poll-interval', '1'] });
    apps.push(second);
    await second.waitForScreen(
      `Shared local service (pid ${first.pid()}): mail is received via SMTP 127.0.0.1:${port}`,
    );
    const address = await pickFirstDomain(second);
    await sendMail(smtp, { to: address, subject: 'Before the first window quit', text: 'one' });
    await second.waitForScreen((s) => isInbox(s) && s.includes('Before the first window quit'));

    await first.press('q');
    expect(await first.exited()).toBe(0);
    // The second window's process now holds the data dir, on the same SMTP port it has been showing.
    const lock = await waitFor(
      () => {
        const held = existsSync(lockFile)
          ? (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; smtpPort?: number })
          : undefined;
        return held?.pid === second.pid() && held.smtpPort !== undefined ? held : undefined;
      },
      { timeoutMs: SCREEN_TIMEOUT_MS, message: 'the second window to take the service over' },
    );
    expect(lock.smtpPort).toBe(Number(port));
    expect(second.screenText()).toContain(`via SMTP 127.0.0.1:${port}`);

    await sendMail(smtp, { to: address, subject: 'After the first window quit', text: 'two' });
    const inbox = await second.waitForScreen(
      (s) =>
        isInbox(s) &&
        s.includes('After the first window quit') &&
        s.includes('Before the first window quit') &&
        !/Offline/.test(s),
    );
    expect(inbox).toContain(address);
    // The picker no longer calls the service borrowed.
    await second.press('n', /for a new address\?/);
    const picker = await second.press('y', isPicker);
    expect(picker).toContain(`Local service: mail is received via SMTP 127.0.0.1:${port}`);
    expect(picker).not.toContain('Shared local service');
    await second.press(KEYS.ESC, isInbox);
    await second.press('q');
    expect(await second.exited()).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });
});
