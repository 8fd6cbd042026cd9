/**
 * `serve`'s SSH settings (issue 39.1, 39.7) with the real OpenSSH client: off unless asked for; sshPort,
 * sshHost and sshMaxConnections from the config file (the total limit refuses the next connection before
 * the key exchange, with its reason); `--ssh-host-key FILE`, whose fingerprint serve prints and which
 * `ssh` trusts by the known_hosts line docs/server/ssh.md makes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';
import { newKey, sshExec, startSshServe, type SshServe } from './ssh-harness';

const running: ServeReady[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of running.splice(0)) await stopServe(s);
});

describe('serve and SSH', () => {
  it('listens for SSH only when asked to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-off-'));
    const serve = await startServeProcess(['--data-dir', join(dir, 'data')], { TEMPMAIL_TUI_HOME: dir });
    running.push(serve);
    // The line that ends the start-up, printed after every listen line.
    await waitFor(() => / serving /.test(serve.stdout() + serve.stderr()), {
      timeoutMs: 10_000,
      message: 'the serving line',
    });
    expect(serve.stdout()).toMatch(/^HTTP /m);
    expect(serve.stdout()).not.toMatch(/^SSH/m);
  });

  it('takes sshPort, sshHost and sshMaxConnections from the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-config-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ sshPort: 0, sshHost: '127.0.0.2', sshMaxConnections: 1 }));
    const serve = await startServeProcess(['--data-dir', join(dir, 'data'), '--config', config], {
      TEMPMAIL_TUI_HOME: dir,
    });
    running.push(serve);
    const port = Number(
      await waitFor(() => /^SSH 127\.0\.0\.2:(\d+)$/m.exec(serve.stdout())?.[1], {
        timeoutMs: 10_000,
        message: 'the SSH line on 127.0.0.2',
      }),
    );
    // The one connection allowed, held open without a word.
    const held = connect(port, '127.0.0.2');
    sockets.push(held);
    await new Promise((resolve) => held.once('data', resolve));
    const key = newKey(dir, 'k');
    const refused = await sshExec(port, key, ['domains'], '127.0.0.2');
    expect(refused.code).toBe(255);
    expect(refused.stderr).toContain('too many SSH connections to this service; try again later');
    held.destroy();
    const taken = await waitFor(
      async () => {
        const r = await sshExec(port, key, ['domains'], '127.0.0.2');
        return r.code === 0 ? r : undefined;
      },
      { timeoutMs: 10_000, message: 'ssh to be taken once the other connection closed' },
    );
    expect(taken.stdout).toContain('tempmail.test');
  });

  it("serves the operator's --ssh-host-key: its fingerprint printed, ssh trusting the docs' known_hosts line", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-hostkey-'));
    const hostKey = join(dir, 'host-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
    let serve: SshServe | undefined;
    try {
      serve = await startSshServe(['--ssh-host-key', hostKey], dir);
      const printed = execFileSync('ssh-keygen', ['-l', '-f', `${hostKey}.pub`], { encoding: 'utf8' }).split(' ')[1];
      expect(serve.fingerprint).toBe(printed);
      // As the docs make it: echo "[host]:port $(ssh-keygen -y -f KEY)".
      const knownHosts = join(dir, 'known_hosts');
      const publicKey = execFileSync('ssh-keygen', ['-y', '-f', hostKey], { encoding: 'utf8' }).trim();
      writeFileSync(knownHosts, `[127.0.0.1]:${serve.sshPort} ${publicKey}\n`);
      const key = newKey(dir, 'k');
      const args = ['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-i', key];
      const strict = ['-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`];
      const child = spawn('ssh', [...args, ...strict, '-p', String(serve.sshPort), '127.0.0.1', 'domains'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, err).toBe(0);
      expect(out).toContain('tempmail.test');
    } finally {
      await serve?.stop();
    }
  });
});
