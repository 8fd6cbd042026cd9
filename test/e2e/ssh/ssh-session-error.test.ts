/**
 * An error in one session ends that session alone, with a line (issue 39.7): a key whose kept record
 * (`<data dir>/ssh/`, one file per key) holds an address that is not text makes its app throw when the
 * address is opened. That client reads one line, no stack and none of the service's source, and ssh
 * exits non-zero; a session open at the same time still draws on a key; `serve` stays up and logs the
 * error once.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { newKey, sshExec, startSshServe, tmuxSsh, type SshServe } from './ssh-harness';

let serve: SshServe;

beforeAll(async () => {
  serve = await startSshServe(['--log-format', 'json']);
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

/** Keeps for `key` a record whose one address is the number 5 (as a bad write or another version might). */
function keepBrokenRecord(key: string): void {
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', `${key}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  const file = createHash('sha256').update(`key ${fingerprint}`).digest('hex');
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
  mkdirSync(join(serve.dir, 'data', 'ssh'), { recursive: true });
  writeFileSync(join(serve.dir, 'data', 'ssh', file), JSON.stringify(record), { mode: 0o600 });
}

/** The JSON log lines of `event` serve has written so far (on stderr, as --log-format json puts them). */
const logged = (event: string) =>
  `${serve.stdout()}\n${serve.stderr()}`
    .split('\n')
    .filter((line) => line.startsWith('{') && (JSON.parse(line) as { event?: string }).event === event);

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

      // serve is up, and said it once.
      expect((await sshExec(serve.sshPort, undefined, ['new'])).code).toBe(0);
      const lines = await waitFor(
        () => (logged('ssh.session_error').length > 0 ? logged('ssh.session_error') : undefined),
        {
          timeoutMs: 5000,
          message: 'the session error in the log',
        },
      );
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', event: 'ssh.session_error' });
      expect(lines[0]).not.toMatch(/\\n\s*at /);
    } finally {
      failing.close();
      other.close();
    }
  });
});
