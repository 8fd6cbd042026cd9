/**
 * idle_bytes_per_s_80x24 and idle_cpu_pct: what the app costs while nothing happens.
 *
 * The app runs in an 80x24 pty against a remote `serve`, on an inbox holding one message, with the
 * default 5 s poll interval (the app checks once a minute while `serve`'s push is live, and its countdown
 * says whole minutes an hour from expiry). Once the message is listed and a 2 s settling time has passed,
 * windows open:
 * - bytes: everything the app writes to its terminal over 20 s (4 s with --quick), per second;
 * - CPU: the app process's utime + stime (/proc/<pid>/stat), as % of one core, over two windows of 60 s
 *   each (6 s with --quick), one after the other. `idle_cpu_pct` is the second: the app left idle, as it
 *   sits in a terminal for an hour. The first is `idle_cpu_pct_first_minute`: it also holds V8 finishing
 *   its work on code that has just started to run (optimizing the poll and countdown paths on its
 *   compiler threads) and the two full collections its memory reducer makes ~8 s after the heap last
 *   grew, each done once. Each with its main thread's share beside it (`*_main_thread`; the rest is V8's
 *   GC and compiler threads).
 * Baseline, the second window: a bare Node process that fetches the same check-mail every 5 s
 * (`idle_cpu_pct_baseline_fetch_loop`): what polling costs with no UI at all.
 */
import { spawn } from 'node:child_process';
import type { Figure } from './figure';
import { openInboxApp } from '../harness/inbox-app';
import { cpuMs, mainThreadCpuMs } from '../harness/proc';
import { measuredNode, neutralEnv } from '../harness/pty-app';
import { startServe } from '../harness/serve-proc';
import { createInbox, sendOne } from '../harness/service-calls';
import { round, sleep } from '../harness/stats';
import { tempDir } from '../harness/temp';

const FETCH_LOOP =
  'setInterval(() => fetch(process.env.U).then((r) => r.text()), 5000); fetch(process.env.U).then((r) => r.text());';

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
    const app = await openInboxApp({
      baseUrl: serve.baseUrl,
      inbox,
      loaded: (s) => s.includes('Your order has shipped'),
    });
    ctx.defer(() => app.stop());
    // The token reaches the baseline by environment, never argv.
    const url = new URL('check-mail', serve.baseUrl);
    url.searchParams.set('token', inbox.token);
    const loop = spawn(measuredNode(), ['-e', FETCH_LOOP], { env: neutralEnv({ U: url.href }), stdio: 'ignore' });
    ctx.defer(() => loop.kill('SIGKILL'));
    await sleep(2_000);

    const at = () => ({
      t: performance.now(),
      app: cpuMs(app.pid),
      main: mainThreadCpuMs(app.pid),
      loop: cpuMs(loop.pid!),
    });
    const pct = (a: ReturnType<typeof at>, b: ReturnType<typeof at>, k: 'app' | 'main' | 'loop') =>
      ((b[k] - a[k]) / (b.t - a.t)) * 100;
    const start = at();
    const bytes0 = app.bytes();
    await sleep(bytesWindowMs);
    const bytesPerS = ((app.bytes() - bytes0) * 1000) / (performance.now() - start.t);
    await sleep(Math.max(0, cpuWindowMs - (performance.now() - start.t)));
    const middle = at();
    await sleep(cpuWindowMs);
    const end = at();
    const [first, firstMain] = [pct(start, middle, 'app'), pct(start, middle, 'main')];
    const [appPct, mainPct, loopPct] = [pct(middle, end, 'app'), pct(middle, end, 'main'), pct(middle, end, 'loop')];
    ctx.log(
      `idle: ${bytesPerS.toFixed(0)} bytes/s; app ${appPct.toFixed(2)}% CPU (its main thread ${mainPct.toFixed(2)}%) in the second window, ` +
        `${first.toFixed(2)}% (${firstMain.toFixed(2)}%) in the first; bare fetch loop ${loopPct.toFixed(2)}%`,
    );
    return {
      idle_bytes_per_s_80x24: round(bytesPerS),
      idle_cpu_pct: round(appPct),
      idle_cpu_pct_main_thread: round(mainPct),
      idle_cpu_pct_first_minute: round(first),
      idle_cpu_pct_first_minute_main_thread: round(firstMain),
      idle_cpu_pct_baseline_fetch_loop: round(loopPct),
      idle_bytes_window_s: round(bytesWindowMs / 1000),
      idle_cpu_window_s: round((end.t - middle.t) / 1000),
    };
  },
};
