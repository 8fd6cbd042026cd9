/**
 * Nothing but the app and the commands (issue 39.2): the real `ssh` gets no SFTP (and the service lives
 * on after the refused session's connection closes), no remote port forwarding and no local forwarding
 * (a connection through it is refused, never reaches the service's own HTTP port).
 */
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { newKey, sshArgs, sshExec, startSshServe, type SshServe } from './ssh-harness';

let serve: SshServe;
let key: string;

beforeAll(async () => {
  serve = await startSshServe();
  key = newKey(serve.dir, 'fwd');
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

/** Runs `ssh ...args` (with the key); resolves with its stderr and exit status. */
function ssh(args: string[]): {
  done: Promise<{ stderr: string; code: number | null }>;
  stderr: () => string;
  kill: () => void;
} {
  const child = spawn('ssh', [...sshArgs(serve.sshPort, key), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout.resume();
  const done = new Promise<{ stderr: string; code: number | null }>((resolve) =>
    child.on('close', (code) => resolve({ stderr, code })),
  );
  return { done, stderr: () => stderr, kill: () => void child.kill() };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('ssh forwards nothing', () => {
  it('refuses the SFTP subsystem', async () => {
    const { stderr, code } = await ssh(['-s', '127.0.0.1', 'sftp']).done;
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/subsystem request failed/);
    // The refused session's connection closing left the service running (it once ended it).
    const after = await sshExec(serve.sshPort, key, ['domains']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('tempmail.test');
  });

  it('refuses remote port forwarding', async () => {
    const { stderr, code } = await ssh(['-N', '-o', 'ExitOnForwardFailure=yes', '-R', '0:127.0.0.1:9', '127.0.0.1'])
      .done;
    expect(code).toBe(255);
    expect(stderr).toMatch(/remote port forwarding failed/);
  });

  it('refuses local forwarding: a connection through it never reaches the service', async () => {
    const local = await freePort();
    const httpPort = new URL(serve.baseUrl).port;
    const tunnel = ssh(['-N', '-L', `${local}:127.0.0.1:${httpPort}`, '127.0.0.1']);
    try {
      // Once ssh listens, a request through it gets no answer (the HTTP service would send one): the
      // channel is refused and the connection closed.
      const answer = await waitFor(
        () =>
          new Promise<{ got: string } | undefined>((resolve) => {
            const socket = connect(local, '127.0.0.1');
            let got = '';
            socket.on('data', (d) => (got += d.toString('utf8')));
            socket.on('connect', () => socket.write('GET / HTTP/1.0\r\n\r\n'));
            socket.on('error', () => resolve(undefined));
            socket.on('close', () => resolve(socket.bytesWritten > 0 ? { got } : undefined));
          }),
        { timeoutMs: 15_000, message: 'ssh to listen on the forwarded port' },
      ).catch(() => ({ got: 'never connected' }));
      expect(answer.got).toBe('');
    } finally {
      tunnel.kill();
    }
  });
});
