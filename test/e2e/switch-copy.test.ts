/**
 * Issue 4 end to end, on the built program in a real pseudo-terminal against a `serve` child: two
 * addresses, switching between them with `s`, a restart that offers both first in the picker with their
 * remaining time, and copying over OSC 52: `c` writes ESC ] 52 ; c ; <base64 of the address>, and `y` on
 * a mail with a code writes the code's base64. Asserted on the raw bytes the app wrote and on the screen.
 * In local mode (no --base-url) an address is saved under "local:<data dir>" and offered after a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { addressOnScreen, isInbox, isPicker, isViewer } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

// OSC 52, "c" selection, base64, ended by BEL or ST.
const OSC52 = /\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)/g;

let serve: ServeReady | undefined;
const apps: PtyApp[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) app.kill();
  if (serve) await stopServe(serve);
  serve = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** The test's environment minus what would change the app: config, XDG dirs, multiplexers, displays. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { TEMPMAIL_TUI_HOME: home };
  for (const key of Object.keys(process.env)) {
    if (
      /^(TEMPMAIL_|XDG_)/.test(key) ||
      ['NO_COLOR', 'FORCE_COLOR', 'TMUX', 'STY', 'DISPLAY', 'WAYLAND_DISPLAY'].includes(key)
    ) {
      if (key !== 'TEMPMAIL_TUI_HOME') env[key] = undefined;
    }
  }
  return env;
}

/** The base64 payloads of every OSC 52 in `bytes`, decoded. */
function copied(bytes: Buffer): string[] {
  return [...bytes.toString('latin1').matchAll(OSC52)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
}

function start(home: string): PtyApp {
  const app = spawnApp({
    args: ['--base-url', serve!.baseUrl, '--poll-interval', '1'],
    env: cleanEnv(home),
    cols: 100,
    rows: 30,
  });
  apps.push(app);
  return app;
}

describe('saved addresses, switching and OSC 52 copying in a pseudo-terminal', () => {
  it('creates two, switches with s, copies address and code over OSC 52, and a restart offers both first', async () => {
    const data = await mkdtemp(join(tmpdir(), 'tempmail-e2e-data-'));
    const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-home-'));
    dirs.push(data, home);
    serve = await startServeProcess(['--host', '127.0.0.1', '--data-dir', data], cleanEnv(home));
    let app = start(home);

    // First address; `c` copies it: the raw bytes carry its base64 in an OSC 52.
    await app.waitForScreen(isPicker);
    await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s));
    const first = addressOnScreen(app);
    let mark = app.mark();
    await app.press('c', 'Sent address to the terminal via OSC 52');
    expect(copied(app.rawSince(mark))).toEqual([first]);
    expect(app.rawSince(mark).toString('latin1')).toContain(`\x1b]52;c;${Buffer.from(first).toString('base64')}`);
    // The frame survived the sequence: header and footer are where they were.
    expect(app.screen()[0]).toContain(first);
    expect(app.screenText()).toMatch(/q quit/);

    // A mail with a code: marked in the list without opening it, shown in the viewer, `y` copies it.
    await sendMail(serve, {
      from: 'Acme <no-reply@acme.example>',
      to: first,
      subject: 'Your Acme sign-in code',
      text: 'Your verification code is 482913.\nIt expires in 10 minutes. Order 55501234.',
    });
    await app.waitForScreen((s) => isInbox(s) && s.includes('[code 482913]'));
    await app.press(KEYS.ENTER, (s) => isViewer(s) && /^Code: +482913 +y copies/m.test(s));
    mark = app.mark();
    await app.press('y', 'Sent code 482913 to the terminal via OSC 52');
    expect(copied(app.rawSince(mark))).toEqual(['482913']);
    await app.press(KEYS.ESC, isInbox);

    // A second address, from the picker opened by n (the highlight starts on a new choice there).
    await app.press('n', /Leave .* for a new address\?/);
    await app.press('y', isPicker);
    await app.press(KEYS.ENTER, (s) => isInbox(s) && !s.includes(first) && /expires in/.test(s));
    const second = addressOnScreen(app);
    expect(second).not.toBe(first);

    // `s`: both, with remaining time, the current one marked; switch to the first and back.
    let screen = await app.press('s', 'saved addresses (2)');
    expect(screen).toMatch(new RegExp(`1  ${second.replace(/\./g, '\\.')} +expires in \\d+:\\d\\d  \\(current\\)`));
    expect(screen).toMatch(new RegExp(`2  ${first.replace(/\./g, '\\.')} +expires in \\d+:\\d\\d`));
    await app.press('2', (s) => isInbox(s) && s.includes('Your Acme sign-in code'));
    expect(addressOnScreen(app)).toBe(first);
    await app.press('s', 'saved addresses (2)');
    await app.press('1', (s) => isInbox(s) && s.includes(`No mail yet for ${second}`));
    expect(addressOnScreen(app)).toBe(second);

    await app.press('q');
    expect(await app.exited()).toBe(0);
    const saved = join(home, 'state', 'sessions.json');
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'state')).mode & 0o777).toBe(0o700);

    // Restart: both offered first, newest first, with their remaining time; Enter resumes the newest.
    app = start(home);
    screen = await app.waitForScreen((s) => isPicker(s) && s.includes('Resume'));
    const rows = app.screen();
    const firstResume = rows.findIndex((r) => r.includes(`Resume ${second} (expires in `));
    expect(firstResume).toBeGreaterThan(0);
    expect(rows[firstResume + 1]).toMatch(
      new RegExp(`Resume ${first.replace(/\./g, '\\.')} \\(expires in \\d+:\\d\\d\\)`),
    );
    expect(rows.findIndex((r) => r.includes('Random address on'))).toBe(firstResume + 2);
    await app.press('2', (s) => isInbox(s) && s.includes('Your Acme sign-in code'));
    expect(addressOnScreen(app)).toBe(first);
    await app.press('q');
    expect(await app.exited()).toBe(0);
    // No token on any screen or in any byte the app wrote (the copy sequences included).
    const tokens = (JSON.parse(readFileSync(saved, 'utf8')) as { sessions: { token: string }[] }).sessions.map(
      (s) => s.token,
    );
    expect(tokens).toHaveLength(2);
    for (const run of apps) for (const t of tokens) expect(run.raw().toString('latin1')).not.toContain(t);
  }, 120_000);

  it('inside tmux and GNU screen, c writes OSC 52 in the form each passes on', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-home-'));
    dirs.push(home);
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    for (const [name, env] of [
      ['tmux', { TMUX: '/tmp/tmux-0/default,4242,0' }],
      ['screen', { STY: '4242.pts-0.host' }],
    ] as const) {
      const app = spawnApp({ args: ['--poll-interval', '1'], env: { ...cleanEnv(home), ...env }, cols: 100, rows: 30 });
      apps.push(app);
      await app.waitForScreen((s) => isPicker(s) && s.includes('Local service'));
      await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s));
      const address = addressOnScreen(app);
      const mark = app.mark();
      await app.press('c', 'Sent address to the terminal via OSC 52');
      const raw = app.rawSince(mark).toString('latin1');
      if (name === 'tmux') {
        // Plain for tmux's set-clipboard, and as a passthrough DCS with the inner ESCs doubled.
        expect(raw).toContain(`\x1b]52;c;${b64(address)}\x07\x1bPtmux;\x1b\x1b]52;c;${b64(address)}\x07\x1b\\`);
      } else {
        // Chunks of at most 76 base64 characters, each in a DCS string of its own.
        const chunks = b64(address).match(/.{1,76}/g)!;
        expect(raw).toContain(`\x1bP\x1b]52;c;${chunks.join('\x1b\\\x1bP')}\x07\x1b\\`);
      }
      await app.press('q');
      expect(await app.exited()).toBe(0);
    }
  }, 60_000);

  it('local mode: the address is saved under the data dir, so a restart (new HTTP port) offers it again', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-home-'));
    dirs.push(home);
    const local = () => {
      const app = spawnApp({ args: ['--poll-interval', '1'], env: cleanEnv(home), cols: 100, rows: 30 });
      apps.push(app);
      return app;
    };
    let app = local();
    await app.waitForScreen((s) => isPicker(s) && s.includes('Local service'));
    await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s));
    const address = addressOnScreen(app);
    await app.press('q');
    expect(await app.exited()).toBe(0);
    const saved = JSON.parse(readFileSync(join(home, 'state', 'sessions.json'), 'utf8')) as {
      sessions: { email: string; baseUrl: string }[];
    };
    expect(saved.sessions.map((s) => [s.email, s.baseUrl])).toEqual([[address, `local:${join(home, 'data')}/`]]);

    app = local();
    await app.waitForScreen((s) => isPicker(s) && s.includes(`Resume ${address} (expires in`));
    await app.press(KEYS.ENTER, (s) => isInbox(s) && s.includes(`No mail yet for ${address}`));
    await app.press('q');
    expect(await app.exited()).toBe(0);
  }, 60_000);
});
