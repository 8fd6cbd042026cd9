/**
 * Runs the built program (`node dist/cli.js serve ...`) as a child process, the way a user does, and
 * reads its `HTTP <url>` / `SMTP <host>:<port>` lines. Needs `npm run build` first (npm test does it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServeReady extends ServeProcess {
  baseUrl: string;
  smtpHost: string;
  smtpPort: number;
}

/** Starts `node dist/cli.js <args>`; does not wait for anything. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** One listen line of `serve --log-format json` (src/server/serve/serve-output.ts). */
interface ListenLine {
  event?: string;
  protocol?: string;
  url?: string;
  host?: string;
  port?: number;
}

/**
 * The HTTP and SMTP addresses serve printed: its plain lines (`HTTP <url>`, `SMTP <host>:<port>`), or
 * with `--log-format json` its listen objects (an IPv6 host bracketed, as the plain line has it).
 */
export function listenAddresses(stdout: string): { baseUrl: string; smtpHost: string; smtpPort: number } | undefined {
  const http = /^HTTP (http:\/\/\S+\/)$/m.exec(stdout);
  const smtp = /^SMTP (\S+):(\d+)$/m.exec(stdout);
  if (http && smtp) return { baseUrl: http[1]!, smtpHost: smtp[1]!, smtpPort: Number(smtp[2]) };
  const listens = stdout
    .split('\n')
    .filter((l) => l.startsWith('{') && l.endsWith('}'))
    .map((l) => JSON.parse(l) as ListenLine)
    .filter((l) => l.event === 'listen');
  const web = listens.find((l) => l.protocol === 'http');
  const mail = listens.find((l) => l.protocol === 'smtp');
  if (!web?.url || !mail?.host || mail.port === undefined) return undefined;
  return { baseUrl: web.url, smtpHost: mail.host.includes(':') ? `[${mail.host}]` : mail.host, smtpPort: mail.port };
}

/** Starts `serve` (ports 0 unless given) and waits until it has printed both addresses. */
export async function startServeProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
): Promise<ServeReady> {
  const withPorts = [...args];
  if (!withPorts.includes('--http-port')) withPorts.push('--http-port', '0');
  if (!withPorts.includes('--smtp-port')) withPorts.push('--smtp-port', '0');
  const proc = spawnCli(['serve', ...withPorts], env);
  const early = proc.exited.then(({ code, signal }) => {
    throw new Error(`serve exited early (code ${code}, signal ${signal}): ${proc.stderr().trim()}`);
  });
  const printed = waitFor(() => listenAddresses(proc.stdout()), {
    timeoutMs,
    message: 'serve to print its HTTP and SMTP addresses',
  });
  early.catch(() => undefined); // only matters while racing below
  const ready = await Promise.race([printed, early]).catch((error: unknown) => {
    proc.child.kill('SIGKILL');
    throw error;
  });
  return { ...proc, ...ready };
}

/** Sends SIGTERM and waits for the exit. */
export async function stopServe(proc: ServeProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal);
  return proc.exited;
}
