/**
 * Nothing but the app and the commands (issue 39.2): the real `ssh` gets no SFTP (and the service lives
 * on after the refused session's connection closes), no remote port forwarding and no local forwarding
 * (a connection through it is refused, never reaches the service's own HTTP port), no agent forwarding
 * (no agent channel is ever opened to it; the app still opens) and no X11 forwarding.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'ssh2';
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

/** Runs `ssh ...args` (with the key, `env` added); resolves with its stderr and exit status. */
function ssh(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): {
  done: Promise<{ stderr: string; code: number | null }>;
  stdout: () => string;
  stderr: () => string;
  write: (text: string) => void;
  kill: () => void;
} {
  const child = spawn('ssh', [...sshArgs(serve.sshPort, key), ...args], {
    // Input only for the app (a pty's keys); a tunnel's ssh keeps none, as before.
    stdio: [args.includes('-tt') ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  const done = new Promise<{ stderr: string; code: number | null }>((resolve) =>
    child.on('close', (code) => resolve({ stderr, code })),
  );
  return {
    done,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text) => void child.stdin?.write(text),
    kill: () => void child.kill(),
  };
}

/** A running ssh-agent (holding no key) on a socket of its own; `stop` ends it. */
async function startAgent(): Promise<{ socket: string; stop: () => void }> {
  const socket = join(serve.dir, `agent-${process.hrtime.bigint()}.sock`);
  const agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  await waitFor(() => existsSync(socket) || undefined, { timeoutMs: 5000, message: 'ssh-agent to listen' });
  return { socket, stop: () => void agent.kill() };
}

/** The app over `ssh -tt ...args`, quit with q once its first frame came; resolves with ssh's stderr. */
async function appWith(args: string[], env: NodeJS.ProcessEnv): Promise<{ stderr: string; code: number | null }> {
  const app = ssh(['-vvv', ...args, '-tt', '127.0.0.1'], env);
  try {
    await waitFor(() => app.stdout().includes('choose an address') || undefined, {
      timeoutMs: 15_000,
      message: 'the app over ssh',
    });
  } catch (error) {
    app.kill();
    throw error;
  }
  app.write('q');
  return app.done;
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

  it('refuses agent forwarding: ssh -A opens the app and is never sent an agent channel', async () => {
    const agent = await startAgent();
    try {
      const { stderr, code } = await appWith(['-A', '-o', 'ForwardAgent=yes'], { SSH_AUTH_SOCK: agent.socket });
      expect(code).toBe(0);
      // OpenSSH asks without wanting a reply (confirm 0): what the refusal leaves is that the service
      // never opens an auth-agent@openssh.com channel back to the client, which -vvv would show.
      expect(stderr).toContain('Requesting authentication agent forwarding.');
      expect(stderr).not.toMatch(/ctype auth-agent@openssh\.com/);
      // A client that asks for a reply (ssh2's, to the same agent) is told no.
      const refused = await new Promise<string>((resolve, reject) => {
        const client = new Client();
        client.on('error', reject);
        client.on('ready', () =>
          client.shell({ term: 'xterm', cols: 80, rows: 24 }, (error) => {
            client.end();
            resolve(error ? error.message : 'accepted');
          }),
        );
        client.connect({
          host: '127.0.0.1',
          port: serve.sshPort,
          username: 'me',
          privateKey: readFileSync(key),
          agent: agent.socket,
          agentForward: true,
        });
      });
      expect(refused).toBe('Unable to request agent forwarding');
    } finally {
      agent.stop();
    }
  });

  it('refuses X11 forwarding: ssh -X is told the request failed and opens the app', async () => {
    const { stderr, code } = await appWith(['-X'], { DISPLAY: ':0' });
    expect(code).toBe(0);
    expect(stderr).toContain('Requesting X11 forwarding');
    expect(stderr).toMatch(/X11 forwarding request failed on channel 0/);
    expect(stderr).not.toMatch(/ctype x11/);
  });
});
