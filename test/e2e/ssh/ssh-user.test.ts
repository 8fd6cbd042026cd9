/**
 * Who you are is your key (issue 39.3), with the real OpenSSH client: the login name is ignored (any name
 * with one key is the same user), and the read marks of a key's addresses are kept by the service: a
 * message read in one session is read in the next.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { newKey, sshArgs, startSshServe, tmuxSsh, type SshServe, type TmuxSsh } from './ssh-harness';

let serve: SshServe;
const open: TmuxSsh[] = [];

beforeAll(async () => {
  serve = await startSshServe();
}, 30_000);

afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

afterAll(async () => {
  await serve?.stop();
});

/** `ssh -l LOGIN host COMMAND` with `key`: its output and exit status. */
function sshAs(login: string, key: string, command: string[]): Promise<{ stdout: string; code: number | null }> {
  const child = spawn('ssh', [...sshArgs(serve.sshPort, key), '-l', login, '127.0.0.1', ...command], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ stdout, code })));
}

describe('a key is the user', () => {
  it('ignores the login name: one key under any name has the same addresses', async () => {
    const key = newKey(serve.dir, 'names');
    const made = await sshAs('alice', key, ['new']);
    expect(made.code).toBe(0);
    const address = made.stdout.trim();
    for (const login of ['bob', 'root', 'x'.repeat(40)]) {
      const listed = await sshAs(login, key, ['list', '--address', address]);
      expect(listed.code, login).toBe(0);
    }
    // Another key under the same name does not have it.
    const other = await sshAs('alice', newKey(serve.dir, 'other'), ['list', '--address', address]);
    expect(other.code).not.toBe(0);
  });

  it("keeps a key's read marks: a message read in one session is read in the next", async () => {
    const key = newKey(serve.dir, 'reader');
    const first = tmuxSsh(serve.sshPort, key);
    open.push(first);
    const picker = await first.waitForScreen(/(\d) Random address on tempmail\.test/);
    first.keys(/(\d) Random address on tempmail\.test/.exec(picker)![1]!);
    const address = /(\S+@tempmail\.test)\s+expires in/.exec(
      await first.waitForScreen(/\S+@tempmail\.test\s+expires in/),
    )![1]!;
    await sendMail(serve, { to: address, subject: 'Welcome aboard', text: 'Read me once.' });
    await first.waitForScreen('1 unread');
    first.keys('Enter');
    await first.waitForScreen('Read me once.');
    first.keys('q');
    await first.waitForScreen(/1 message(?! · 1 unread)/);
    first.keys('q');
    await first.waitForScreen(/^\s*$/);

    const again = tmuxSsh(serve.sshPort, key);
    open.push(again);
    await again.waitForScreen(`Resume ${address}`);
    again.keys('Enter');
    const inbox = await again.waitForScreen('Welcome aboard');
    expect(inbox).toMatch(/1 message · 0 unread/);
  });
});
