/**
 * `node dist/cli.js serve` as its own process, the way a user runs it: its start time is spawn to the
 * `HTTP <url>` line on stdout, and its stderr log (one line per request) tells how many check-mail
 * requests an app has made.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, measuredNode, neutralEnv } from './pty-app';
import { rssMb } from './proc';

export interface ServeOptions {
  /** Where it stores: a data dir, or a database (`--database-url`, the URL without a password). */
  dataDir?: string;
  databaseUrl?: string;
  /** More `serve` flags. */
  args?: string[];
  /**
   * 'measured' (default): every per-client rate so high that a bench's one loopback client never meets
   * it, yet each is still counted (its cost is in the figures); 'defaults': serve's own limits.
   */
  limits?: 'measured' | 'defaults';
  /** Read the process's RSS the moment the HTTP line arrives. */
  rssAtListen?: boolean;
  timeoutMs?: number;
}

export interface Span {
  start: number;
  end: number;
}

export interface RunningServe {
  pid: number;
  baseUrl: string;
  smtpHost: string;
  smtpPort: number;
  /** Spawn to the `HTTP ...` line, ms. */
  startMs: number;
  /** RSS (MB) when the HTTP line arrived, when asked for. */
  rssAtListenMb?: number;
  /** check-mail requests the log has shown so far (any status). */
  checkMailCount(): number;
  /** Each logged check-mail request's start and end, epoch ms (from the log's time and its duration). */
  checkMailRequests(): readonly Span[];
  /** SIGTERM, then SIGKILL after 15 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts serve on loopback, ports 0, and resolves once it prints both addresses. */
export function startServe(options: ServeOptions): Promise<RunningServe> {
  if (!options.databaseUrl === !options.dataDir) throw new Error('startServe: give a dataDir or a databaseUrl (one)');
  const storage = options.databaseUrl ? ['--database-url', options.databaseUrl] : ['--data-dir', options.dataDir!];
  const high = '1000000000';
  const limits =
    options.limits === 'defaults'
      ? []
      : [
          '--http-requests-per-minute',
          high,
          '--smtp-messages-per-minute',
          high,
          '--smtp-recipients-per-minute',
          high,
          '--smtp-connections-per-client',
          '0',
        ];
  const args = [
    'serve',
    '--host',
    '127.0.0.1',
    '--http-port',
    '0',
    '--smtp-port',
    '0',
    ...storage,
    ...limits,
    ...(options.args ?? []),
  ];
  const t0 = performance.now();
  const child: ChildProcess = spawn(measuredNode(), [CLI, ...args], {
    env: neutralEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let out = '';
  let errTail = '';
  let checks = 0;
  const spans: Span[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!/ \/check-mail\b/.test(line)) continue;
      checks++;
      // "2026-01-01T12:00:00.123Z http GET /check-mail 200 12ms | client=...", logged as the answer went out.
      const m = /^(\S+Z) http GET \/check-mail \d{3} (\d+)ms(?: \|.*)?$/.exec(line);
      if (m) spans.push({ start: Date.parse(m[1]!) - Number(m[2]), end: Date.parse(m[1]!) });
    }
    errTail = (errTail + chunk.toString('utf8')).slice(-2000);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<RunningServe>((resolve, reject) => {
    let startMs: number | undefined;
    let rssAtListenMb: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not print its addresses within ${options.timeoutMs ?? 120_000} ms: ${errTail}`));
    }, options.timeoutMs ?? 120_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (code ${code}, signal ${signal}) before listening: ${errTail}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (startMs === undefined && /^HTTP /m.test(out + chunk.toString('utf8'))) {
        startMs = performance.now() - t0;
        if (options.rssAtListen) rssAtListenMb = rssMb(child.pid!);
      }
      out += chunk.toString('utf8');
      const http = /^HTTP (http:\/\/\S+\/)$/m.exec(out);
      const smtp = /^SMTP (\S+):(\d+)$/m.exec(out);
      if (!http || !smtp || startMs === undefined) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        baseUrl: http[1]!,
        smtpHost: smtp[1]!,
        smtpPort: Number(smtp[2]),
        startMs,
        rssAtListenMb,
        checkMailCount: () => checks,
        checkMailRequests: () => spans,
        stop,
      });
    });
  });
}
