/**
 * What an idle inbox costs: CPU time of the app (built, in a real pty, polling every second) over a quiet
 * window, against a bare Node process making the same check-mail request every second in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEYS, spawnApp } from '../test/e2e/pty-harness';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process, in ms, from /proc (Linux only). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface IdleResult {
  windowMs: number;
  baselineCpuMs: number;
  appCpuMs: number;
}

export async function benchIdle(baseUrl: string, token: string, windowMs = 10_000): Promise<IdleResult> {
  const home = mkdtempSync(join(tmpdir(), 'tempmail-bench-idle-'));
  // The token travels by environment, never argv.
  const poller = spawn(
    process.execPath,
    ['-e', "setInterval(() => fetch(process.env.U + 'check-mail?token=' + process.env.T).then((r) => r.text()), 1000)"],
    { env: { ...process.env, U: baseUrl, T: token }, stdio: 'ignore' },
  );
  const app = spawnApp({ args: ['--base-url', baseUrl, '--poll-interval', '1'], env: { TEMPMAIL_TUI_HOME: home } });
  try {
    await app.waitForScreen('Random address on', 15_000);
    app.write(KEYS.ENTER);
    await app.waitForScreen('No mail yet', 15_000);
    const pid = app.pid();
    const a0 = cpuMs(pid);
    const b0 = cpuMs(poller.pid!);
    await quiet(windowMs); // the measurement window itself
    return { windowMs, appCpuMs: cpuMs(pid) - a0, baselineCpuMs: cpuMs(poller.pid!) - b0 };
  } finally {
    app.kill();
    poller.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

export function formatIdle(r: IdleResult): string {
  const pct = (ms: number) => `${((ms / r.windowMs) * 100).toFixed(2)}% CPU`;
  return (
    `idle inbox (1 s polls, ${r.windowMs / 1000} s): app ${r.appCpuMs.toFixed(0)}ms (${pct(r.appCpuMs)}) vs bare fetch loop ` +
    `${r.baselineCpuMs.toFixed(0)}ms (${pct(r.baselineCpuMs)}) = ${(r.appCpuMs / Math.max(1, r.baselineCpuMs)).toFixed(2)}x`
  );
}
