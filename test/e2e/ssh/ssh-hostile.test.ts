/**
 * Limits and hostile clients on the SSH front: connections per client address refused with the reason
 * (OpenSSH prints it), garbage instead of SSH, a 0x0 and a 10000x10000 window, a flood of resizes, an
 * escape sequence in TERM and in the login name, a channel never read: the service keeps serving the
 * others (an `ssh host new` answers after each).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientChannel } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, sshExec, startSshServe, tmuxSsh, type SshServe } from './ssh-harness';
import { waitFor } from '../../harness/wait';

let serve: SshServe;
let key: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
  // The handshake deadline stays the default here: 4 handshakes at once on a loaded machine can take
  // seconds (the deadline's own test has a service of its own).
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ sshConnectionsPerClient: 4 }));
  serve = await startSshServe(['--config', join(dir, 'config.json'), '--metrics'], dir);
  key = newKey(serve.dir, 'key');
}, 30_000);

afterAll(async () => {
  await serve?.stop();
});

/** The service still answers: a new address over SSH. */
async function stillServes(): Promise<void> {
  const answer = await sshExec(serve.sshPort, key, ['new']);
  expect(answer.code).toBe(0);
}

/** An ssh2 client's shell with `pty` (as sent, unchecked) and login `username`. */
function shell(
  pty: { term: string; cols: number; rows: number },
  username = 'me',
): Promise<{ client: Client; stream: ClientChannel; output: () => string }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.on('error', reject);
    client.on('ready', () =>
      client.shell(pty, (error, stream) => {
        if (error) return reject(error);
        let out = '';
        stream.on('data', (d: Buffer) => (out += d.toString('utf8')));
        resolve({ client, stream, output: () => out });
      }),
    );
    client.connect({ host: '127.0.0.1', port: serve.sshPort, username, privateKey: readFileSync(key) });
  });
}

describe('ssh limits and hostile clients', () => {
  it('refuses connections past the per-client limit with the reason, and takes them again once one closes', async () => {
    const held = [1, 2, 3, 4].map(() => tmuxSsh(serve.sshPort, key));
    try {
      for (const t of held) await t.waitForScreen('choose an address');
      const refused = await sshExec(serve.sshPort, key, ['list']);
      expect(refused.code).toBe(255);
      expect(refused.stderr).toContain('too many SSH connections from your address');
    } finally {
      for (const t of held) t.close();
    }
    await waitFor(async () => (await sshExec(serve.sshPort, key, ['new'])).code === 0 || undefined, {
      timeoutMs: 10_000,
      message: 'a connection to be taken again',
    });
  });

  it('counts refusals by reason, key and anonymous logins and open sessions in /metrics and the log', async () => {
    expect((await sshExec(serve.sshPort, undefined, ['domains'])).code).toBe(0);
    const held = tmuxSsh(serve.sshPort, key);
    try {
      await held.waitForScreen('choose an address');
      const text = await (await fetch(`${serve.baseUrl}metrics`)).text();
      expect(text).toMatch(/^tempmail_ssh_refused_total\{reason="too-many-from-client"\} [1-9]/m);
      expect(text).toMatch(/^tempmail_ssh_logins_total\{kind="key"\} [1-9]/m);
      expect(text).toMatch(/^tempmail_ssh_logins_total\{kind="anonymous"\} [1-9]/m);
      expect(text).toMatch(/^tempmail_ssh_sessions_open 1$/m);
      expect(serve.stderr()).toMatch(/ssh login from 127\.0\.0\.1: anonymous/);
      expect(serve.stderr()).toMatch(/ssh login from 127\.0\.0\.1: SHA256:/);
      expect(serve.stderr()).toMatch(/ssh refused 127\.0\.0\.1: too-many-from-client/);
    } finally {
      held.close();
    }
  });

  it('survives garbage instead of SSH', async () => {
    const socket = connect(serve.sshPort, '127.0.0.1');
    socket.on('error', () => undefined);
    // Read what comes (the version line), or 'close' never comes.
    socket.resume();
    const closed = new Promise((r) => socket.once('close', r));
    await new Promise((r) => socket.once('connect', r));
    socket.write(Buffer.alloc(64 * 1024, 0xff));
    socket.write('\x1b]0;pwned\x07SSH-2.0-\x00\x00\r\n');
    await closed;
    await stillServes();
  });

  it('closes a connection that says nothing at the handshake deadline, and logs why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ sshHandshakeTimeoutMs: 2000 }));
    const quick = await startSshServe(['--config', join(dir, 'config.json')], dir);
    try {
      const socket = connect(quick.sshPort, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      await new Promise((r) => socket.once('close', r));
      await waitFor(() => /ssh refused 127\.0\.0\.1: handshake-timeout/.test(quick.stderr()) || undefined, {
        timeoutMs: 5000,
        message: 'the handshake-timeout refusal in the log',
      });
    } finally {
      await quick.stop();
    }
  });

  it('logs a client looping refused connections in one line and the count of its repeats', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tempmail-ssh-'));
    const config = { sshConnectionsPerClient: 1, sshHandshakeTimeoutMs: 120_000 };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const own = await startSshServe(['--config', join(dir, 'config.json'), '--log-format', 'json'], dir);
    const closed = (socket: Socket) => new Promise((r) => socket.once('close', r));
    const open = () => {
      const socket = connect(own.sshPort, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      return socket;
    };
    // One connection, silent, holds this address's one slot; 30 more are refused at once.
    const holder = open();
    try {
      // Its slot is taken once the service has said its version.
      await new Promise((r) => holder.once('data', r));
      await Promise.all(Array.from({ length: 30 }, () => closed(open())));
    } finally {
      holder.destroy();
      // Stopped, serve has written the repeats it folded.
      await own.stop();
    }
    const lines = own
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; reason?: string; client?: string; repeats?: number })
      .filter((l) => l.event === 'ssh.refused' && l.reason === 'too-many-from-client');
    expect(lines[0]).toMatchObject({ client: '127.0.0.1' });
    expect(lines[0]!.repeats).toBeUndefined();
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line.repeats).toBeGreaterThan(0);
    expect(lines.reduce((n, l) => n + (l.repeats ?? 1), 0)).toBe(30);
  });

  it('draws for a 0x0 window, a 10000x10000 one, a flood of resizes, and an escape in TERM and the login name', async () => {
    const zero = await shell({ term: 'xterm\x1b[31m', cols: 0, rows: 0 }, 'x\x1b]0;evil\x07');
    await waitFor(() => zero.output().includes('choose an address') || undefined, {
      timeoutMs: 10_000,
      message: 'a frame at 0x0',
    });
    const huge = await shell({ term: 'xterm', cols: 10000, rows: 10000 });
    await waitFor(() => huge.output().includes('choose an address') || undefined, {
      timeoutMs: 10_000,
      message: 'a frame at 10000x10000',
    });
    for (let i = 0; i < 1000; i++) huge.stream.setWindow(10 + (i % 300), 5 + (i % 100), 0, 0);
    huge.stream.write('\x1b[<garbage\x00\xff\x1b');
    await stillServes();
    zero.client.end();
    huge.client.end();
  });

  it('serves the others while a client never reads its session', async () => {
    const lazy = await shell({ term: 'xterm', cols: 500, rows: 200 });
    // The client stops reading: ssh2's window fills, the service's writes wait on it.
    lazy.stream.pause();
    for (let i = 0; i < 200; i++) lazy.stream.setWindow(400 + (i % 2), 200, 0, 0);
    await stillServes();
    lazy.client.end();
  });
});
