/**
 * idle_bytes_per_s_80x24 and idle_cpu_pct: what the app costs while nothing happens.
 *
 * The app runs in an 80x24 pty against a remote `serve`, on an inbox holding one message, with the
 * default 5 s poll interval. Once the message is listed and a 2 s settling time has passed, two windows
 * open at the same moment:
 * - bytes: everything the app writes to its terminal over 20 s (4 s with --quick), per second;
 * - CPU: the app process's utime + stime (/proc/<pid>/stat) over 60 s (6 s with --quick), as % of one core;
 *   its main thread's share beside it (`idle_cpu_pct_main_thread`; the rest is V8's GC and compiler threads).
 * Baseline, same window: a bare Node process that fetches the same check-mail every 5 s
 * (`idle_cpu_pct_baseline_fetch_loop`): what polling costs with no UI at all.
 */
import { spawn } from 'node:child_process';
import type { Figure } from './figure';
import { openInboxApp } from '../harness/inbox-app';
import { cpuMs, mainThreadCpuMs } from '../harness/proc';
import { neutralEnv } from '../harness/pty-app';
import { startServe } from '../harness/serve-proc';
import { createInbox, sendOne } from '../harness/service-calls';
import { round, sleep } from '../harness/stats';
import { tempDir } from '../harness/temp';

const FETCH_LOOP = "setInterval(() => fetch(process.env.U).then((r) => r.text()), 5000); fetch(process.env.U).then((r) => r.text());";

export const idle: Figure = {
  name: 'idle',
  keys: ['idle_bytes_per_s_80x24', 'idle_cpu_pct'],
  async run(ctx) {
    const bytesWindowMs = ctx.quick ? 4_000 : 20_000;
    const cpuWindowMs = ctx.quick ? 6_000 : 60_000;
    const serve = await startServe({ dataDir: tempDir('tempmail-bench-idle-') });
    ctx.defer(() => serve.stop());
    const inbox = await createInbox(serve.baseUrl);
    await sendOne(serve.smtpHost, serve.smtpPort, inbox.email, 'Your order has shipped');
    const app = await openInboxApp({ baseUrl: serve.baseUrl, inbox, loaded: (s) => s.includes('Your order has shipped') });
    ctx.defer(() => app.stop());
    // The token reaches the baseline by environment, never argv.
    const url = new URL('check-mail', serve.baseUrl);
    url.searchParams.set('token', inbox.token);
    const loop = spawn(process.execPath, ['-e', FETCH_LOOP], { env: neutralEnv({ U: url.href }), stdio: 'ignore' });
    ctx.defer(() => loop.kill('SIGKILL'));
    await sleep(2_000);

    const t0 = performance.now();
    const bytes0 = app.bytes();
    const app0 = cpuMs(app.pid);
    const main0 = mainThreadCpuMs(app.pid);
    const loop0 = cpuMs(loop.pid!);
    await sleep(bytesWindowMs);
    const bytesPerS = ((app.bytes() - bytes0) * 1000) / (performance.now() - t0);
    await sleep(Math.max(0, cpuWindowMs - (performance.now() - t0)));
    const windowMs = performance.now() - t0;
    const appPct = ((cpuMs(app.pid) - app0) / windowMs) * 100;
    const mainPct = ((mainThreadCpuMs(app.pid) - main0) / windowMs) * 100;
    const loopPct = ((cpuMs(loop.pid!) - loop0) / windowMs) * 100;
    ctx.log(`idle: ${bytesPerS.toFixed(0)} bytes/s, app ${appPct.toFixed(2)}% CPU (its main thread ${mainPct.toFixed(2)}%), bare fetch loop ${loopPct.toFixed(2)}%`);
    return {
      idle_bytes_per_s_80x24: round(bytesPerS),
      idle_cpu_pct: round(appPct),
      idle_cpu_pct_main_thread: round(mainPct),
      idle_cpu_pct_baseline_fetch_loop: round(loopPct),
      idle_bytes_window_s: round(bytesWindowMs / 1000),
      idle_cpu_window_s: round(windowMs / 1000),
    };
  },
};
