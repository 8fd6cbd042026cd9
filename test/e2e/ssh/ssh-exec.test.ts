/**
 * `ssh host COMMAND` with the real OpenSSH client: the scripting commands' output and exit status travel
 * back (exit-status), each key sees only its own addresses, `list --json` and `read ID --json` print
 * what the installed CLI prints for the same address, and what is not a command over SSH is a usage
 * error (2).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, sshExec, startSshServe, type SshServe } from './ssh-harness';
import { sendMail } from '../../harness/service';
import { spawnCli } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';
import { openSavedSessions } from '../../../src/state/saved-sessions';

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

  it('prints list --json and read ID --json as the installed CLI does for the same address', async () => {
    const made = await sshExec(serve.sshPort, alice, ['new', '--json', '--show-token']);
    expect(made.code).toBe(0);
    const { email, token, expiresAt } = JSON.parse(made.stdout) as { email: string; token: string; expiresAt: string };
    const fresh = await sshExec(serve.sshPort, alice, ['list', '--json', '--address', email]);
    expect(fresh).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(fresh.stdout)).toEqual({ address: email, messages: [] });
    await sendMail(serve, { to: email, subject: 'First', text: 'one' });
    await sendMail(serve, { to: email, subject: 'Second', text: 'Your code is 771204' });
    const listed = await waitFor(
      async () => {
        const l = await sshExec(serve.sshPort, alice, ['list', '--json', '--address', email]);
        return (JSON.parse(l.stdout) as { messages: unknown[] }).messages.length === 2 ? l : undefined;
      },
      { timeoutMs: 15_000, message: 'both mails listed over ssh' },
    );
    expect(listed.code).toBe(0);
    // The installed CLI, holding the same address (saved as `new` saves it), on the same service.
    const home = mkdtempSync(join(tmpdir(), 'tempmail-ssh-cli-'));
    openSavedSessions({ dir: join(home, 'state') }).save(
      { email, token, expiresAt: new Date(expiresAt) },
      serve.baseUrl,
    );
    const cli = async (args: string[]) => {
      const run = spawnCli(args, {
        TEMPMAIL_TUI_HOME: home,
        TEMPMAIL_PROVIDER: 'tempmail',
        TEMPMAIL_BASE_URL: serve.baseUrl,
      });
      const { code } = await run.exited;
      return { stdout: run.stdout(), stderr: run.stderr(), code };
    };
    const local = await cli(['list', '--json']);
    expect(local.code).toBe(0);
    expect(listed.stdout).toBe(local.stdout);
    const messages = (JSON.parse(listed.stdout) as { messages: { id: number; subject: string }[] }).messages;
    expect(messages.map((m) => m.subject)).toEqual(['Second', 'First']);
    const id = String(messages[0]!.id);
    const read = await sshExec(serve.sshPort, alice, ['read', id, '--json', '--address', email]);
    expect(read).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(read.stdout)).toMatchObject({ subject: 'Second', code: '771204' });
    expect(read.stdout).toBe((await cli(['read', id, '--json'])).stdout);
  });

  it('answers list --json for a key with no address as the CLI does with none saved', async () => {
    const nobody = newKey(serve.dir, 'nobody');
    const none = await sshExec(serve.sshPort, nobody, ['list', '--json']);
    const home = mkdtempSync(join(tmpdir(), 'tempmail-ssh-cli-'));
    const run = spawnCli(['list', '--json'], {
      TEMPMAIL_TUI_HOME: home,
      TEMPMAIL_PROVIDER: 'tempmail',
      TEMPMAIL_BASE_URL: serve.baseUrl,
    });
    const local = { ...(await run.exited), stdout: run.stdout(), stderr: run.stderr() };
    expect(local).toMatchObject({ code: 1, stdout: '' });
    expect(local.stderr).toContain('no saved address');
    expect(none).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
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
