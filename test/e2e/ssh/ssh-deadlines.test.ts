/**
 * The two deadlines before a client is in (issue 39.7): the authentication deadline (`sshAuthTimeoutMs`)
 * runs from the end of the key exchange and cuts a client that never logs in, whatever the handshake
 * deadline (`sshHandshakeTimeoutMs`, from accept to the key exchange's end; a silent client is cut at it,
 * ssh-hostile.test.ts); and the handshake deadline never cuts a client that is past the key exchange.
 * The stalled client is the real `ssh` waiting in its window for a key's passphrase: the key exchange is
 * done and the service has said the key would do, and nothing more comes until it is typed. Once in, a
 * connection running no shell and no command (the real `ssh -N`) is cut at `sshAuthTimeoutMs` as well.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { newKey, sshArgs, startSshServe, tmuxSsh, type SshServe } from './ssh-harness';

const PASSPHRASE = 'correct horse';

/** `serve` with these SSH deadlines and JSON logs. */
async function serveWith(deadlines: { sshHandshakeTimeoutMs: number; sshAuthTimeoutMs: number }): Promise<SshServe> {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(deadlines));
  return startSshServe(['--config', join(dir, 'config.json'), '--log-format', 'json'], dir);
}

/** A key whose private half needs PASSPHRASE; returns its path. */
function keyWithPassphrase(dir: string): string {
  const file = join(dir, 'locked');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-C', 'locked', '-f', file]);
  return file;
}

/** The `ssh.refused` reasons serve has logged so far. */
function refusals(serve: SshServe): string[] {
  return serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event?: string; reason?: string })
    .filter((l) => l.event === 'ssh.refused')
    .map((l) => l.reason ?? '');
}

// Each test waits out a deadline of 10 s, long enough that ssh in tmux gets past the phase before it under load.
describe('ssh handshake and authentication deadlines', { timeout: 60_000 }, () => {
  it('cuts a client that stalls in authentication at the authentication deadline, the handshake one long', async () => {
    const serve = await serveWith({ sshHandshakeTimeoutMs: 120_000, sshAuthTimeoutMs: 10_000 });
    const t = tmuxSsh(serve.sshPort, keyWithPassphrase(serve.dir), { batch: false, showExit: true });
    try {
      await t.waitForScreen('Enter passphrase for key');
      await waitFor(() => refusals(serve).includes('auth-timeout') || undefined, {
        timeoutMs: 20_000,
        message: 'the auth-timeout refusal in the log',
      });
      expect(refusals(serve)).toEqual(['auth-timeout']);
      // The passphrase typed now is too late: the connection is gone, ssh fails.
      t.keys(PASSPHRASE, 'Enter');
      const after = await t.waitForScreen(/^ssh exit \d+$/m);
      expect(after).toMatch(/^ssh exit 255$/m);
      expect(after).not.toContain('choose an address');
    } finally {
      t.close();
      await serve.stop();
    }
  });

  it('lets a client in that is past the key exchange when the handshake deadline passes', async () => {
    const serve = await serveWith({ sshHandshakeTimeoutMs: 10_000, sshAuthTimeoutMs: 120_000 });
    const t = tmuxSsh(serve.sshPort, keyWithPassphrase(serve.dir), { batch: false });
    try {
      await t.waitForScreen('Enter passphrase for key');
      // A silent connection opened now is cut at the handshake deadline, which has passed for the
      // stalled client as well once it is.
      const silent = connect(serve.sshPort, '127.0.0.1');
      silent.on('error', () => undefined);
      silent.resume();
      await new Promise((r) => silent.once('close', r));
      await waitFor(() => refusals(serve).includes('handshake-timeout') || undefined, {
        timeoutMs: 5000,
        message: 'the handshake-timeout refusal in the log',
      });
      t.keys(PASSPHRASE, 'Enter');
      await t.waitForScreen('choose an address');
      expect(refusals(serve)).toEqual(['handshake-timeout']);
    } finally {
      t.close();
      await serve.stop();
    }
  });

  it('closes a logged-in connection that opens no session at the deadline; a session running alongside goes on', async () => {
    const serve = await serveWith({ sshHandshakeTimeoutMs: 120_000, sshAuthTimeoutMs: 10_000 });
    const app = tmuxSsh(serve.sshPort, newKey(serve.dir, 'key'));
    let held: ChildProcess | undefined;
    try {
      await app.waitForScreen('choose an address');
      // `ssh -N`, anonymous: logged in, no shell and no command, holding its connection.
      held = spawn('ssh', [...sshArgs(serve.sshPort, undefined), '-N', '127.0.0.1'], { stdio: 'ignore' });
      let code: number | null | undefined;
      held.on('close', (c) => (code = c));
      await waitFor(() => code !== undefined || undefined, { timeoutMs: 20_000, message: 'ssh -N to be cut' });
      expect(code).toBe(255);
      expect(refusals(serve)).toEqual(['no-session']);
      expect(serve.stderr()).toMatch(/"event":"ssh\.login"[^\n]*"login":"anonymous"/);
      // The app session, in since before `ssh -N` logged in, still takes a key and draws.
      const line = app
        .screen()
        .split('\n')
        .find((l) => l.includes('Random address on tempmail.test'))!;
      app.keys(/(\d) Random/.exec(line)![1]!);
      await app.waitForScreen(/^\S+@tempmail\.test\s+expires in/m);
      expect(refusals(serve)).toEqual(['no-session']);
    } finally {
      held?.kill();
      app.close();
      await serve.stop();
    }
  });
});
