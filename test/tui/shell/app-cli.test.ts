import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAppArgs, runAppCli } from '../../../src/tui/shell/app-cli';
import { serviceKey, serviceLabel } from '../../../src/tui/shell/run-app';
import { startRef } from '../../../src/tui/shell/app-service';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tui-cli-'));
  homes.push(dir);
  return dir;
}

/** Runs the CLI with captured streams and a temp home (no config file unless written). */
async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  const code = await runAppCli(argv, '9.9.9', {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr,
    stdin,
    env: { TEMPMAIL_TUI_HOME: home(), ...env },
  });
  return { code, out, err };
}

describe('app CLI', () => {
  it('--help shows usage with the version and answers without starting anything', async () => {
    // How fast it answers is measured by npm run bench (bench/figures/startup.ts).
    const { code, out, err } = await run(['--help']);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toContain('tempmail-tui 9.9.9');
    for (const flag of ['--base-url', '--poll-interval', '--no-bell', '--server-tz', '--help', '--version'])
      expect(out).toContain(flag);
    expect(out).toContain('TEMPMAIL_BASE_URL');
    expect((await run(['-h'])).code).toBe(0);
  });

  it('--version prints the version', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, out: '9.9.9\n', err: '' });
  });

  it('unknown flags, missing values and stray arguments exit 2 with a clear message', async () => {
    for (const [argv, message] of [
      [['--bogus'], 'unknown option --bogus'],
      [['-x'], 'unknown option -x'],
      [['--base-url'], 'option --base-url needs a value'],
      [['--no-bell=yes'], 'option --no-bell takes no value'],
      [
        ['--server-tz', '-05:00'],
        'option --server-tz needs a value; write one that starts with "-" as --server-tz=-VALUE',
      ],
      [['inbox'], 'unexpected argument inbox'],
    ] as const) {
      const { code, out, err } = await run([...argv]);
      expect({ code, out }).toEqual({ code: 2, out: '' });
      expect(err).toBe(`tempmail-tui: ${message}\nTry 'tempmail-tui --help'.\n`);
    }
  });

  it('a bad setting exits 2 naming the key, from a flag, the environment or the config file', async () => {
    let r = await run(['--poll-interval', 'fast']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--poll-interval must be a number of seconds >= 1, got "fast"');
    r = await run(['--base-url', 'ftp://x']);
    expect(r.err).toContain('--base-url must be an http(s) URL');
    r = await run([], { TEMPMAIL_SERVER_TZ: 'Mars/Olympus' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('TEMPMAIL_SERVER_TZ');
    const dir = home();
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config', 'config.json'), '{"pollIntervalSeconds": "often"}');
    r = await run([], { TEMPMAIL_TUI_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('pollIntervalSeconds');
  });

  it('refuses to draw on something that is not a terminal', async () => {
    const { code, err } = await run(['--base-url', 'http://127.0.0.1:9/']);
    expect(code).toBe(2);
    expect(err).toContain('needs an interactive terminal');
  });

  it('flags beat the environment and turn into settings', () => {
    const parsed = parseAppArgs(['--poll-interval', '2', '--no-bell', '--server-tz', '+02:00'], {
      TEMPMAIL_TUI_HOME: home(),
      TEMPMAIL_POLL_INTERVAL: '9',
      TEMPMAIL_BASE_URL: 'http://127.0.0.1:8025/',
    });
    expect(parsed.settings).toMatchObject({
      pollIntervalMs: 2000,
      bell: false,
      serverTz: '+02:00',
      baseUrl: 'http://127.0.0.1:8025/',
    });
  });

  it('--download-dir sets where attachments go; addresses are saved under the URL, or local: plus the data dir', async () => {
    const dir = home();
    expect(parseAppArgs(['--download-dir', '/tmp/dl'], { TEMPMAIL_TUI_HOME: dir }).settings?.downloadDir).toBe(
      '/tmp/dl',
    );
    expect(parseAppArgs([], { TEMPMAIL_TUI_HOME: dir }).settings?.downloadDir).toBe(join(dir, 'downloads'));
    expect((await run(['--download-dir'])).err).toContain('option --download-dir needs a value');
    expect((await run(['--help'])).out).toContain('--download-dir');
    // One key per service: the same URL however it is spelled; the local service by where its data lives.
    expect(serviceKey('http://127.0.0.1:8025', {})).toBe('http://127.0.0.1:8025/');
    expect(serviceKey('http://127.0.0.1:8025/', {})).toBe('http://127.0.0.1:8025/');
    expect(serviceKey(undefined, { TEMPMAIL_TUI_HOME: dir })).toBe(`local:${join(dir, 'data')}`);
    expect(serviceKey(undefined, { XDG_DATA_HOME: '/srv/x', HOME: '/home/u' })).toBe('local:/srv/x/tempmail-tui');
  });

  it('--provider picks where new addresses go; a provider alone starts at its own base URL', async () => {
    const dir = home();
    const env = { TEMPMAIL_TUI_HOME: dir };
    expect(parseAppArgs(['--provider', 'mailtm'], env).settings).toMatchObject({ provider: 'mailtm' });
    expect(startRef(parseAppArgs(['--provider', 'mailtm'], env).settings!, env)).toEqual({
      provider: 'mailtm',
      baseUrl: 'https://api.mail.tm/',
    });
    expect(
      startRef(parseAppArgs(['--provider', 'mailtm', '--base-url', 'https://api.mail.gw'], env).settings!, env),
    ).toEqual({
      provider: 'mailtm',
      baseUrl: 'https://api.mail.gw/',
    });
    expect(startRef(parseAppArgs(['--provider', 'tempmail'], env).settings!, env)).toEqual({
      provider: 'tempmail',
      baseUrl: 'https://mailtemp.us/api/',
    });
    expect(startRef(parseAppArgs([], { ...env, TEMPMAIL_PROVIDER: 'guerrilla' }).settings!, env).provider).toBe(
      'guerrilla',
    );
    expect(startRef(parseAppArgs([], env).settings!, env)).toEqual({
      provider: 'tempmail',
      baseUrl: `local:${join(dir, 'data')}`,
    });
    const bad = await run(['--provider', 'nope'], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--provider must be one of tempmail, mailtm, guerrilla, tempmaillol or auto, got "nope"');
    expect((await run(['--help'], env)).out).toContain('--provider NAME');
  });

  it('names the service by host and path, never with a password', () => {
    expect(serviceLabel('https://user:secret@mail.example/api/')).toBe('Service: https://mail.example/api/');
    expect(serviceLabel('http://127.0.0.1:8025/')).toBe('Service: http://127.0.0.1:8025');
  });
});
