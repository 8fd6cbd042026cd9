/**
 * What a new user gets from `npm start`: no service configured, so the app runs the reference service
 * in-process, says where to send mail, and shows mail the moment the service stores it. The test sends there with nodemailer and reads the mail, all
 * in the built app in a real pseudo-terminal, with its data under a temp TEMPMAIL_TUI_HOME.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { sendMail } from '../harness/service';
import { isInbox, isViewer, neutralEnv, pickFirstDomain } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

let app: PtyApp | undefined;
let home: string | undefined;
let serve: ServeReady | undefined;
afterEach(async () => {
  app?.kill();
  if (serve) await stopServe(serve, 'SIGKILL');
  serve = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  app = undefined;
  home = undefined;
});

describe('local mode (no service configured)', () => {
  it('starts the reference service in-process, shows the SMTP target, and mail sent there is readable', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-local-'));
    app = spawnApp({ env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 100, rows: 30 });
    const picker = await app.waitForScreen(/Random address on/);
    expect(picker).toMatch(/Local service: mail is received via SMTP 127\.0\.0\.1:\d+/);

    const address = await pickFirstDomain(app);
    // One line at this width; the target is the loopback SMTP port the app found free (2525 or next).
    const screen = await app.waitForScreen(
      (s) => /Local service: send mail to \S+\s+via SMTP/.test(s) && s.includes(`No mail yet for ${address}.`),
    );
    const target = /Local service: send mail to (\S+)\s+via SMTP ([\d.]+):(\d+)/.exec(screen);
    expect(target?.[1]).toBe(address);
    const smtpHost = target![2]!;
    const smtpPort = Number(target![3]);
    expect(smtpHost).toBe('127.0.0.1');
    expect(smtpPort).toBeGreaterThan(0);
    // The empty state names the exact target too (header + empty state).
    expect(screen.split(`SMTP ${smtpHost}:${smtpPort}`).length - 1).toBeGreaterThanOrEqual(2);

    await sendMail(
      { smtpHost, smtpPort },
      { to: address, subject: 'Hello from the new user', text: 'It works locally.' },
    );
    await app.press('r', (s) => isInbox(s) && s.includes('Hello from the new user'));
    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('It works locally.'));
    await app.press('q', isInbox);
    await app.press('q');
    expect(await app.exited()).toBe(0);
    // The service's data went to the temp home, not the user's real data directory.
    expect(existsSync(join(home, 'data'))).toBe(true);
  });

  it('shows mail sent over SMTP at once, without waiting for a poll (checks an hour apart)', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-push-'));
    app = spawnApp({
      args: ['--poll-interval', '3600'],
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
      cols: 100,
      rows: 30,
    });
    const address = await pickFirstDomain(app);
    const screen = await app.waitForScreen((s) => /via SMTP [\d.]+:\d+/.test(s) && /every 3600 s/.test(s));
    const [, smtpHost, smtpPort] = /via SMTP ([\d.]+):(\d+)/.exec(screen)!;
    // The first check was at start; the next is an hour away. Nothing is pressed: the service tells the
    // app of the mail as it stores it, and the app lists it.
    for (const subject of ['Pushed one', 'Pushed two']) {
      await sendMail({ smtpHost: smtpHost!, smtpPort: Number(smtpPort) }, { to: address, subject, text: 'at once' });
      await app.waitForScreen((s) => isInbox(s) && s.includes(subject));
    }
    expect(app.screenText()).toMatch(/2 messages · 2 unread · 2 new/);
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} from outside ends the app like q: exit 0, main screen back, the local service closed`, async () => {
      home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-signal-'));
      app = spawnApp({ env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 100, rows: 30 });
      await pickFirstDomain(app);
      const lock = join(home, 'data', 'service.lock');
      // The running in-process service names the app's own process in its lock.
      expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(app.pid());
      process.kill(app.pid(), signal);
      expect(await app.exited()).toBe(0);
      expect(existsSync(lock)).toBe(false);
      const raw = app.raw().toString('utf8');
      expect(raw.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(raw.lastIndexOf('\x1b[?1049h'));
      expect(app.terminal().buffer.active.type).toBe('normal');
    });
  }

  it('uses the service already running on its data dir, says whose it is, and leaves it running on q', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-shared-'));
    serve = await startServeProcess([], { TEMPMAIL_TUI_HOME: home });
    app = spawnApp({ env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 100, rows: 30 });
    const picker = await app.waitForScreen(/Random address on/);
    expect(picker).toContain(
      `Shared local service (pid ${serve.child.pid}): mail is received via SMTP ${serve.smtpHost}:${serve.smtpPort}`,
    );
    await app.press('q');
    expect(await app.exited()).toBe(0);
    expect((await call(serve.baseUrl, '/health')).status).toBe(200);
  });
});
