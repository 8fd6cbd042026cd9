/**
 * Issue 39, the SSH front, one run:
 * - ssh_first_frame_over_app: `ssh -t` (OpenSSH, a key, in an 80x24 pty) from its spawn to the end mark
 *   (ESC[?2026l) of the app's first frame, over the installed app's own start to its first frame against
 *   the same service (median of 7 each, 3 with --quick, in turns).
 * - ssh_rss_mb_per_session: serve's RSS with 50 idle app sessions open (ssh2 client, one key each) minus
 *   its RSS with none, over 50.
 * - ssh_key_p95_ms_50: with those 50 open, `j` sent on one to the end mark of the frame it causes (p95 of
 *   60, 20 with --quick).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client, type ClientChannel } from 'ssh2';
import type { Figure } from './figure';
import { PtyApp } from '../harness/pty-app';
import { rssMb } from '../harness/proc';
import { startServe } from '../harness/serve-proc';
import { median, percentile, round } from '../harness/stats';
import { tempDir } from '../harness/temp';

const require = createRequire(import.meta.url);
const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
// @xterm/headless names an ESM build it does not ship; its CommonJS main is the one that exists.
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const FRAME_END = '\x1b[?2026l';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function sshFirstFrame(port: number, key: string): Promise<number> {
  const args = [
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'BatchMode=yes',
    '-o',
    'LogLevel=ERROR',
    '-F',
    '/dev/null',
    '-i',
    key,
    '-p',
    String(port),
    '-t',
    '127.0.0.1',
  ];
  const start = performance.now();
  const child = pty.spawn('ssh', args, {
    cols: 80,
    rows: 24,
    env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>,
  });
  // The terminal answers what the app asks (device attributes, modes), as a real one does and as the
  // installed app's terminal in appFirstFrame does: without it each session waits out the app's question.
  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true, scrollback: 0 });
  term.onData((reply) => child.write(reply));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no first frame over ssh within 30 s')), 30_000);
    child.onData((d) => {
      term.write(d);
      out += d;
      if (!out.includes(FRAME_END)) return;
      clearTimeout(timer);
      resolve(performance.now() - start);
      child.kill();
      term.dispose();
    });
  });
}

async function appFirstFrame(baseUrl: string, home: string): Promise<number> {
  const app = new PtyApp({ args: ['--base-url', baseUrl], env: { TEMPMAIL_TUI_HOME: home } });
  try {
    const first = await app.nextFrame(() => true, 30_000, 'a first frame');
    return first.at - app.spawnedAt;
  } finally {
    await app.stop();
  }
}

function openSession(
  port: number,
  key: Buffer,
): Promise<{ client: Client; stream: ClientChannel; output: { text: string } }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.on('error', reject);
    client.on('ready', () =>
      client.shell({ term: 'xterm-256color', cols: 80, rows: 24 }, (error, stream) => {
        if (error) return reject(error);
        const output = { text: '' };
        stream.on('data', (d: Buffer) => (output.text = (output.text + d.toString('utf8')).slice(-4096)));
        resolve({ client, stream, output });
      }),
    );
    // TCP_NODELAY, as OpenSSH's client sets for an interactive session: with Nagle's algorithm a key
    // waits for the server's delayed ACK of the packet before it (~40 ms).
    const sock = connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    client.connect({ sock, username: 'bench', privateKey: key });
  });
}

/** `j` (or `k`, alternating) to the end of the frame it causes, ms. */
async function keyToFrame(session: { stream: ClientChannel; output: { text: string } }, key: string): Promise<number> {
  session.output.text = '';
  const start = performance.now();
  // Woken by the channel's data, not a polling loop: a loop would take a core from serve on 2 cores.
  const done = new Promise<number>((resolve) => {
    const onData = () => {
      if (!session.output.text.includes(FRAME_END)) return;
      session.stream.off('data', onData);
      resolve(performance.now() - start);
    };
    session.stream.on('data', onData);
  });
  session.stream.write(key);
  return done;
}

export const ssh: Figure = {
  name: 'ssh',
  keys: ['ssh_first_frame_over_app', 'ssh_rss_mb_per_session', 'ssh_key_p95_ms_50'],
  async run(ctx) {
    const dir = tempDir('tempmail-bench-ssh-');
    const port = await freePort();
    // Room for the 50 sessions: one client address, one key each.
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ sshPort: port, sshConnectionsPerClient: 60 }));
    const serve = await startServe({ dataDir: join(dir, 'data'), args: ['--config', join(dir, 'config.json')] });
    ctx.defer(() => serve.stop());
    const keyFile = join(dir, 'key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const runs = ctx.quick ? 3 : 7;
    const home = tempDir('tempmail-bench-ssh-home-');
    await sshFirstFrame(port, keyFile);
    await appFirstFrame(serve.baseUrl, home);
    const viaSsh: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < runs; i++) {
      viaSsh.push(await sshFirstFrame(port, keyFile));
      local.push(await appFirstFrame(serve.baseUrl, home));
    }
    ctx.log(`ssh first frame ${round(median(viaSsh))} ms, the app's own ${round(median(local))} ms`);
    const before = rssMb(serve.pid);
    const sessions: Awaited<ReturnType<typeof openSession>>[] = [];
    const keyP95 = async () => {
      const samples: number[] = [];
      for (let i = 0; i < (ctx.quick ? 20 : 60); i++)
        samples.push(await keyToFrame(sessions[0]!, i % 2 === 0 ? 'j' : 'k'));
      return round(percentile(samples, 95));
    };
    let alone = 0;
    ctx.defer(() => {
      for (const s of sessions) s.client.end();
    });
    for (let i = 0; i < 50; i++) {
      const file = join(dir, `k${i}`);
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
      sessions.push(await openSession(port, readFileSync(file)));
      if (i === 0) {
        while (!/Random address/.test(sessions[0]!.output.text)) await new Promise((r) => setTimeout(r, 20));
        alone = await keyP95();
      }
    }
    // Every session has drawn its picker (with the domains) before RSS is read.
    for (const s of sessions) while (!/Random address/.test(s.output.text)) await new Promise((r) => setTimeout(r, 20));
    const after = rssMb(serve.pid);
    const with50 = await keyP95();
    return {
      ssh_first_frame_over_app: round(median(viaSsh) / median(local)),
      ssh_first_frame_ms: round(median(viaSsh)),
      ssh_app_first_frame_ms: round(median(local)),
      ssh_rss_mb_per_session: round((after - before) / 50),
      ssh_key_p95_ms_50: with50,
      ssh_key_p95_ms_1: alone,
    };
  },
};
