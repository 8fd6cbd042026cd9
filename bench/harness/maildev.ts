/**
 * maildev, the peer for SMTP ingest. It lives in bench/peer-maildev/ with its own package.json and lock
 * file, so a user's `npm ci` never installs it; the first bench run that needs it runs `npm ci` there.
 * It runs as its own process on loopback, web UI off, writing each message to its own temp mail
 * directory (files, no fsync) and keeping its index in memory, which is maildev's file-backed setup.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SmtpConnection } from './smtp-client';
import { neutralEnv } from './pty-app';
import { sleep } from './stats';

const PEER = fileURLToPath(new URL('../peer-maildev/', import.meta.url));

function installedVersion(): string | undefined {
  const file = join(PEER, 'node_modules', 'maildev', 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

/** `npm ci` in bench/peer-maildev unless the locked maildev is there already. */
export function ensureMaildev(log: (line: string) => void): string {
  const lock = JSON.parse(readFileSync(join(PEER, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const wanted = lock.packages['node_modules/maildev']?.version;
  if (installedVersion() !== wanted) {
    log(`installing maildev ${wanted} in bench/peer-maildev (npm ci, first use only)`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEER, stdio: ['ignore', 2, 2] });
  }
  const bin = (
    JSON.parse(readFileSync(join(PEER, 'node_modules', 'maildev', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    }
  ).bin.maildev!;
  return join(PEER, 'node_modules', 'maildev', bin);
}

/** A loopback port free a moment ago (maildev does not take port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningMaildev {
  host: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** Starts maildev and resolves once its SMTP port greets. */
export async function startMaildev(bin: string, mailDir: string): Promise<RunningMaildev> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--smtp', String(port), '--ip', '127.0.0.1', '--disable-web', '--mail-directory', mailDir, '--silent'],
    { env: neutralEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = performance.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`maildev exited (${child.exitCode}): ${err}`);
    try {
      await (await SmtpConnection.open('127.0.0.1', port)).close();
      return { host: '127.0.0.1', port, pid: child.pid!, stop };
    } catch (error) {
      if (performance.now() > deadline) {
        await stop();
        throw new Error(`maildev did not answer on port ${port}: ${String(error)} ${err}`);
      }
      await sleep(100);
    }
  }
}
