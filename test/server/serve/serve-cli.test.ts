/**
 * `tempmail-tui serve` as a user runs it: the built dist/cli.js in a child process. Its printed
 * addresses, its exit codes, its config file, its graceful stop and a restart on the same data.
 */
import { existsSync, watch } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '../../harness/wait';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { sendMail } from '../../harness/service';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../../harness/serve-process';

const cleanup = cleanupAfterEach();
const tempDir = () => cleanup.tempDir('tempmail-serve-');
/** Kills `proc` after the test, if it is still running. */
const track = <T extends ServeProcess>(proc: T): T => cleanup.defer(proc, (p) => stopServe(p, 'SIGKILL'));

describe('tempmail-tui serve', () => {
  it('prints the HTTP URL and the SMTP address once, serves, and exits 0 on SIGTERM', async () => {
    const dir = await tempDir();
    const proc = track(await startServeProcess(['--data-dir', dir, '--domain', 'one.test', '--domain', 'Two.Test']));
    expect(proc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(proc.smtpHost).toBe('127.0.0.1');
    const domains = await call(proc.baseUrl, '/domains');
    expect(domains.json?.domains.map((d: { domain: string }) => d.domain)).toEqual(['one.test', 'two.test']);
    expect(proc.stdout().match(/^HTTP /gm)).toHaveLength(1);
    expect(proc.stdout().match(/^SMTP /gm)).toHaveLength(1);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('exits 0 on SIGINT too, and keeps the token out of its output', async () => {
    const dir = await tempDir();
    const proc = track(await startServeProcess(['--data-dir', dir]));
    const s = (await call(proc.baseUrl, '/create-session', { form: {} })).json!;
    await call(proc.baseUrl, '/check-mail', { query: { token: s.token } });
    await call(proc.baseUrl, '/read-mail', { query: { token: s.token, id: 'x' } });
    expect(await stopServe(proc, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(proc.stderr()).toContain('GET /check-mail 200');
    expect(proc.stdout() + proc.stderr()).not.toContain(s.token);
  });

  it('a SIGTERM while it starts (lock taken, not yet listening) still ends it gracefully: exit 0, lock removed', async () => {
    // The signal handlers used to be installed only after the addresses were printed: a SIGTERM sent
    // in between (a supervisor, or a test that stops serve the moment it printed) met the default
    // action, killed the process by signal and left service.lock behind. The lock is the first thing
    // start-up writes; inotify tells us of it well before serve has opened the store and listened.
    const dir = await tempDir();
    let sent = false;
    let proc: ServeProcess | undefined;
    const watcher = cleanup.defer(
      watch(dir, (_event, name) => {
        if (name === 'service.lock' && !sent && proc && existsSync(join(dir, 'service.lock'))) {
          sent = true;
          proc.child.kill('SIGTERM');
        }
      }),
      (w) => w.close(),
    );
    proc = track(spawnCli(['serve', '--data-dir', dir, '--http-port', '0', '--smtp-port', '0']));
    const exit = await proc.exited;
    watcher.close();
    expect(sent).toBe(true);
    expect(exit, proc.stderr()).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, 'service.lock'))).toBe(false);
  });

  it('exits 2 with a clear message for a bad flag or value, 0 for --help', async () => {
    for (const args of [
      ['--bogus'],
      ['--http-port', 'abc'],
      ['--domain', 'not a domain'],
      ['--extmail-account', 'nobody'],
      ['--lifetime-minutes', '0'],
      ['stray'],
    ]) {
      const proc = spawnCli(['serve', ...args]);
      const { code } = await proc.exited;
      expect(code, args.join(' ')).toBe(2);
      expect(proc.stderr()).toMatch(/^tempmail-tui serve: .+\nTry 'tempmail-tui serve --help'\.\n$/);
      expect(proc.stdout()).toBe('');
    }
    // Option mistakes are worded like the app's and the scripting commands' (one shared describer).
    for (const [args, message] of [
      [['--bogus'], 'unknown option --bogus'],
      [['--data-dir'], 'option --data-dir needs a value'],
      [
        ['--lifetime-minutes', '-5'],
        'option --lifetime-minutes needs a value; write one that starts with "-" as --lifetime-minutes=-VALUE',
      ],
      [['stray'], 'unexpected argument stray'],
    ] as const) {
      const proc = spawnCli(['serve', ...args]);
      expect((await proc.exited).code).toBe(2);
      expect(proc.stderr()).toBe(`tempmail-tui serve: ${message}\nTry 'tempmail-tui serve --help'.\n`);
    }
    const help = spawnCli(['serve', '--help']);
    expect((await help.exited).code).toBe(0);
    expect(help.stdout()).toContain('--extmail-account');
  });

  it('reads a JSON config file, lets flags override it, and refuses unknown keys', async () => {
    const dir = await tempDir();
    const file = join(dir, 'serve.json');
    await writeFile(
      file,
      JSON.stringify({
        domains: ['file.test'],
        extmailAccounts: ['a.b@gmail.com', { email: 'c@corp.example', dotInsensitive: true }],
        lifetimeMinutes: 5,
        dataDir: join(dir, 'data'),
      }),
    );
    const proc = track(await startServeProcess(['--config', file]));
    const domains = (await call(proc.baseUrl, '/domains')).json!;
    expect(domains.domains).toEqual([{ id: 1, domain: 'file.test' }]);
    expect(domains.extmail_accounts.map((a: { email: string }) => a.email)).toEqual([
      'a.b@gmail.com',
      'c@corp.example',
    ]);
    const s = (await call(proc.baseUrl, '/create-session', { form: {} })).json!;
    const minutes = (Date.parse(`${s.expires_at.replace(' ', 'T')}Z`) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(4);
    expect(minutes).toBeLessThanOrEqual(5);
    await stopServe(proc);

    const overridden = track(await startServeProcess(['--config', file, '--domain', 'flag.test']));
    expect((await call(overridden.baseUrl, '/domains')).json!.domains).toEqual([{ id: 1, domain: 'flag.test' }]);
    await stopServe(overridden);

    await writeFile(file, JSON.stringify({ domians: ['typo.test'] }));
    const bad = spawnCli(['serve', '--config', file]);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toContain('unknown key "domians"');
  });

  it('exits 1 with a readable message when a port is taken', async () => {
    const dir = await tempDir();
    const first = track(await startServeProcess(['--data-dir', dir]));
    const port = new URL(first.baseUrl).port;
    const second = spawnCli(['serve', '--data-dir', join(dir, 'other'), '--http-port', port, '--smtp-port', '0']);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toMatch(/HTTP port \d+ on 127\.0\.0\.1 is already in use/);
    expect(second.stderr()).not.toMatch(/\n\s+at /); // no stack
  });

  it('keeps sessions and messages across a restart on the same data dir', async () => {
    const home = await tempDir();
    // No --data-dir: the default lives under TEMPMAIL_TUI_HOME.
    const env = { TEMPMAIL_TUI_HOME: home };
    const first = track(await startServeProcess([], env));
    const s = (await call(first.baseUrl, '/create-session', { form: { prefix: 'keeper' } })).json!;
    await sendMail(first, { to: s.email, subject: 'kept across restarts', text: 'still here' });
    expect(await stopServe(first)).toEqual({ code: 0, signal: null });

    const second = track(await startServeProcess([], env));
    const list = await call(second.baseUrl, '/check-mail', { query: { token: s.token } });
    expect(list.status).toBe(200);
    expect(list.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['kept across restarts']);
    // The address is still held: nobody else can take it.
    expect((await call(second.baseUrl, '/create-session', { form: { prefix: 'keeper' } })).status).toBe(409);
    await stopServe(second);
  });

  it('--version prints the version; --help names the routes, the signals and the exit codes', async () => {
    const version = spawnCli(['serve', '--version']);
    expect((await version.exited).code).toBe(0);
    expect(version.stdout()).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    const help = spawnCli(['serve', '--help']);
    expect((await help.exited).code).toBe(0);
    for (const said of [
      'GET  /events?token',
      'GET  /health',
      '/admin/stats',
      'Authorization: Bearer',
      'SIGHUP',
      'SIGTERM',
      'Exit codes: 0',
      '--admin-token-file',
    ]) {
      expect(help.stdout(), said).toContain(said);
    }
  });

  it('--data-dir beats TEMPMAIL_DATABASE_URL, and says so', async () => {
    const dir = await tempDir();
    const proc = track(
      await startServeProcess(['--data-dir', dir], { TEMPMAIL_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing' }),
    );
    // stdout (the addresses, which startServeProcess waits for) and stderr (the log) are two pipes with no
    // order between them: wait for the log lines.
    await waitFor(() => proc.stderr().includes(`data in ${dir}`));
    expect(proc.stderr()).toContain(
      'storage: the data dir of the flags overrides the database of TEMPMAIL_DATABASE_URL',
    );
    expect((await call(proc.baseUrl, '/health')).status).toBe(200);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});
