/**
 * An error in one session ends that session alone, with a line (issue 39.7): a key whose kept record
 * (`<data dir>/ssh/`, one file per key) holds an address that is not text makes its app throw when the
 * address is opened. That client reads one line, no stack and none of the service's source, and ssh
 * exits non-zero; a session open at the same time still draws on a key; `serve` stays up and logs the
 * error once.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { newKey, sshArgs, sshExec, startSshServe, tmuxSsh, type SshServe } from './ssh-harness';

let serve: SshServe;

beforeAll(async () => {
  serve = await startSshServe(['--log-format', 'json']);
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

/** The path of `key`'s kept record in the data dir of the serve in `dir` (its folder made). */
function recordPath(key: string, dir = serve.dir): string {
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', `${key}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  mkdirSync(join(dir, 'data', 'ssh'), { recursive: true });
  return join(dir, 'data', 'ssh', createHash('sha256').update(`key ${fingerprint}`).digest('hex'));
}

/** Keeps for `key` a record whose one address is the number 5 (as a bad write or another version might). */
function keepBrokenRecord(key: string): void {
  const record = {
    sessions: [
      {
        email: 5,
        token: 't',
        expiresAt: null,
        createdAt: new Date().toISOString(),
        baseUrl: 'ssh:this-service',
        provider: 'tempmail',
      },
    ],
    read: {},
  };
  writeFileSync(recordPath(key), JSON.stringify(record), { mode: 0o600 });
}

/** The JSON log lines of `event` serve has written so far (on stderr, as --log-format json puts them). */
const logged = (event: string) =>
  `${serve.stdout()}\n${serve.stderr()}`
    .split('\n')
    .filter((line) => line.startsWith('{') && (JSON.parse(line) as { event?: string }).event === event);

/** How many times `s` logged `event`: its lines, a folded one counting as its repeats. */
const events = (s: SshServe, event: string) =>
  s
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event?: string; repeats?: number })
    .filter((l) => l.event === event)
    .reduce((n, l) => n + (l.repeats ?? 1), 0);

describe('an error in one ssh session', () => {
  it('ends that session with a line and a non-zero status; the others and serve go on', async () => {
    const broken = newKey(serve.dir, 'broken');
    keepBrokenRecord(broken);
    const other = tmuxSsh(serve.sshPort, newKey(serve.dir, 'other'));
    const failing = tmuxSsh(serve.sshPort, broken, { record: true, showExit: true });
    try {
      await other.waitForScreen('choose an address');
      await failing.waitForScreen('Resume 5');
      failing.keys('Enter');
      const after = await failing.waitForScreen(/^ssh exit \d+$/m);
      expect(after).toContain('tempmail-tui: this session ended on an error');
      expect(after).not.toContain('ssh exit 0');
      // Nothing of the error but that line: no stack, no source, no file of the service.
      expect(failing.raw()).not.toMatch(/\.js:\d+|dist\/|toLowerCase|\bat \S+ \(/);

      // The session open alongside still takes a key and draws its frame.
      const picker = other.screen();
      const line = picker.split('\n').find((l) => l.includes('Random address on tempmail.test'))!;
      other.keys(/(\d) Random/.exec(line)![1]!);
      await other.waitForScreen(/^\S+@tempmail\.test\s+expires in/m);

      // serve is up, and said it.
      expect((await sshExec(serve.sshPort, undefined, ['new'])).code).toBe(0);
      const lines = await waitFor(
        () => (logged('ssh.session_error').length > 0 ? logged('ssh.session_error') : undefined),
        {
          timeoutMs: 5000,
          message: 'the session error in the log',
        },
      );
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', event: 'ssh.session_error' });
      expect(lines[0]).not.toMatch(/\\n\s*at /);
    } finally {
      failing.close();
      other.close();
    }
    // Once: counted when serve has stopped, and so written any repeat it folded.
    await serve.stop();
    expect(events(serve, 'ssh.session_error')).toBe(1);
  });

  it('logs a user whose addresses cannot be read once, as ssh.read_failed, not again as a session error', async () => {
    const own = await startSshServe(['--log-format', 'json']);
    const unreadable = newKey(own.dir, 'unreadable');
    // A directory where the record's file is: reading it fails (EISDIR), even for root.
    mkdirSync(recordPath(unreadable, own.dir));
    try {
      // Whether the shell request is in before the connection is cut is a race: five logins, each asking
      // for the app at once (`ssh -tt`), so that some of them are.
      for (let i = 0; i < 5; i++) {
        const ssh = spawn('ssh', [...sshArgs(own.sshPort, unreadable), '-tt', '127.0.0.1'], { stdio: 'pipe' });
        let out = '';
        let code: number | null | undefined;
        ssh.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
        ssh.on('close', (c) => (code = c));
        await waitFor(() => code !== undefined || undefined, { timeoutMs: 10_000, message: 'ssh to end' }).finally(() =>
          ssh.kill(),
        );
        expect(code).not.toBe(0);
        expect(out).not.toContain('choose an address');
      }
    } finally {
      // Stopped, serve has written the repeats it folded.
      await own.stop();
    }
    expect(events(own, 'ssh.read_failed')).toBe(5);
    expect(events(own, 'ssh.session_error')).toBe(0);
  });
});
