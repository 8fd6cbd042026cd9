/**
 * `ssh host COMMAND` with the real OpenSSH client: the scripting commands' output and exit status travel
 * back (exit-status), each key sees only its own addresses, and what is not a command over SSH is a
 * usage error (2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, sshExec, startSshServe, type SshServe } from './ssh-harness';
import { sendMail } from '../../harness/service';

let serve: SshServe;
let alice: string;
let bob: string;

beforeAll(async () => {
  serve = await startSshServe();
  alice = newKey(serve.dir, 'alice');
  bob = newKey(serve.dir, 'bob');
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

describe('ssh host COMMAND', () => {
  it('creates an address (new, new --json), lists it, waits for its code and reads it, as the CLI does', async () => {
    const created = await sshExec(serve.sshPort, alice, ['new']);
    expect(created.code).toBe(0);
    const address = created.stdout.trim();
    expect(address).toMatch(/^\S+@tempmail\.test$/);
    const json = await sshExec(serve.sshPort, alice, ['new', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).email).toMatch(/@tempmail\.test$/);
    const nothing = await sshExec(serve.sshPort, alice, [
      'wait',
      '--address',
      address,
      '--print',
      'code',
      '--timeout',
      '1',
    ]);
    expect(nothing.code).toBe(1);
    await sendMail(serve, { to: address, subject: 'Sign-up', text: 'Your code is 482913' });
    const code = await sshExec(serve.sshPort, alice, [
      'wait',
      '--address',
      address,
      '--existing',
      '--print',
      'code',
      '--timeout',
      '20',
    ]);
    expect(code).toMatchObject({ code: 0, stdout: '482913\n' });
    const list = await sshExec(serve.sshPort, alice, ['list', '--address', address]);
    expect(list.code).toBe(0);
    const id = list.stdout.split('\t')[0]!;
    const read = await sshExec(serve.sshPort, alice, ['read', id, '--address', address]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('482913');
  });

  it("never reaches another key's addresses", async () => {
    const created = await sshExec(serve.sshPort, alice, ['new']);
    const address = created.stdout.trim();
    const other = await sshExec(serve.sshPort, bob, ['list', '--address', address]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('is not a saved live address');
  });

  it('refuses what is not a command over SSH with status 2', async () => {
    const unknown = await sshExec(serve.sshPort, alice, ['sh', '-c', 'id']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "sh"');
    const usage = await sshExec(serve.sshPort, alice, ['wait', '--bogus']);
    expect(usage.code).toBe(2);
  });
});
