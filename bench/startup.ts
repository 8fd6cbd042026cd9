/**
 * Start to first frame of the built program in a real pty, against a bare Node start measured in the
 * same run: the ratio is what the app costs on top of starting Node at all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { CLI } from '../test/e2e/pty-harness';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof import('node-pty');

/** ms from spawn until the program's output contains `marker` (or any byte when marker is ''). */
function timeToOutput(args: string[], marker: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = pty.spawn(process.execPath, args, { cols: 100, rows: 30, env, name: 'xterm-256color' });
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${JSON.stringify(marker)} within 15 s; saw ${JSON.stringify(seen.slice(-300))}`));
    }, 15_000);
    child.onData((d) => {
      seen += d;
      if (seen.includes(marker)) {
        const ms = performance.now() - start;
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve(ms);
      }
    });
  });
}

async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await fn());
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

export interface StartupResult {
  baselineMs: number;
  helpMs: number;
  firstFrameMs: number;
}

/** `baseUrl`: a running service, so the first frame is the domain picker with its domains loaded. */
export async function benchStartup(baseUrl: string, firstFrameMarker: string, runs = 7): Promise<StartupResult> {
  const home = mkdtempSync(join(tmpdir(), 'tempmail-bench-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CI') env[k] = v;
  env.TEMPMAIL_TUI_HOME = home;
  try {
    const baselineMs = await median(runs, () => timeToOutput(['-e', "process.stdout.write('ready')"], 'ready', env));
    const helpMs = await median(runs, () => timeToOutput([CLI, '--help'], 'Usage', env));
    const firstFrameMs = await median(runs, () => timeToOutput([CLI, '--base-url', baseUrl], firstFrameMarker, env));
    return { baselineMs, helpMs, firstFrameMs };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function formatStartup(r: StartupResult): string {
  const x = (ms: number) => `${ms.toFixed(0)}ms (${(ms / r.baselineMs).toFixed(2)}x)`;
  return `startup: bare node ${r.baselineMs.toFixed(0)}ms; --help ${x(r.helpMs)}; first frame with domains ${x(r.firstFrameMs)}`;
}
