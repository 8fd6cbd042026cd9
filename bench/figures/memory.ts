/**
 * rss_mb_10k and rss_growth_mb_1000_polls: the app's resident memory (VmRSS from /proc/<pid>/status).
 *
 * The app runs in an 80x24 pty against a remote `serve`, on the seeded 10,000-message inbox (the same
 * one as the key figure; 2,000 with --quick). Once the list is on screen, `r` (check now) is pressed again and again: a poll
 * counts when `serve` has logged the app's check-mail request (the app's own timed polls count too), and
 * after each one, once the app has drawn and gone quiet (50 ms), its RSS is read before the next `r`.
 * The garbage collector makes RSS a sawtooth, so "RSS after N polls" is the median of the reads after
 * the last fifth of a hundred polls before it (polls 81-100, 981-1000; 9-10 and 49-50 with --quick).
 * - rss_mb_10k: RSS after 100 polls (10 with --quick): the app as it runs, its heap grown to what the
 *   list needs (RSS 2 s after the list first showed is `rss_mb_10k_at_load`);
 * - rss_growth_mb_1000_polls: RSS after 1,000 polls minus after 100 (50 minus 10 with --quick).
 * Baseline, same run: a bare idle Node process's RSS.
 */
import { spawn } from 'node:child_process';
import type { Figure } from './figure';
import { openInboxApp } from '../harness/inbox-app';
import { rssMb } from '../harness/proc';
import { measuredNode, type PtyApp } from '../harness/pty-app';
import { startServe, type RunningServe } from '../harness/serve-proc';
import { median, round, sleep } from '../harness/stats';
import { dataset } from '../seed/datasets';
import { listInboxes, QUICK_BIG } from '../seed/inboxes';

/** A process's RSS in MB: the median of five reads 100 ms apart (app-memory.ts uses it too). */
export async function steadyRss(pid: number): Promise<number> {
  const reads: number[] = [];
  for (let i = 0; i < 5; i++) {
    if (i > 0) await sleep(100);
    reads.push(rssMb(pid));
  }
  return median(reads);
}

/**
 * Makes the app poll until serve has seen `target` check-mail requests from it; after each, once the
 * app is quiet, notes its RSS under the poll count.
 */
async function pollUntil(app: PtyApp, serve: RunningServe, target: number, rss: Map<number, number>): Promise<void> {
  while (serve.checkMailCount() < target) {
    await app.settle(50);
    const before = serve.checkMailCount();
    rss.set(before, rssMb(app.pid));
    app.write('r');
    const deadline = performance.now() + 5_000;
    // A refresh asked for while a timed poll is in flight does nothing; that poll counts too.
    while (serve.checkMailCount() === before && performance.now() < deadline) await sleep(5);
  }
}

export const memory: Figure = {
  name: 'memory',
  keys: ['rss_mb_10k', 'rss_growth_mb_1000_polls'],
  async run(ctx) {
    const [first, last] = ctx.quick ? [10, 50] : [100, 1000];
    const data = await dataset(listInboxes(ctx.quick ? QUICK_BIG : 10_000), ctx.log);
    const serve = await startServe({ dataDir: data.dataDir });
    ctx.defer(() => serve.stop());
    const bare = spawn(measuredNode(), ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    ctx.defer(() => bare.kill('SIGKILL'));
    const app = await openInboxApp({
      baseUrl: serve.baseUrl,
      inbox: data.inboxes.big!,
      loaded: (s) => /Order \d{5} shipped/.test(s),
    });
    ctx.defer(() => app.stop());
    await sleep(2_000);
    const atLoad = await steadyRss(app.pid);
    const bareRss = await steadyRss(bare.pid!);
    // The app's own polls so far count: "after 100 polls" means 100 check-mail requests in all.
    const rss = new Map<number, number>();
    const t = performance.now();
    await pollUntil(app, serve, last, rss);
    await app.settle(50);
    rss.set(serve.checkMailCount(), rssMb(app.pid));
    const perPoll = (performance.now() - t) / last;
    const width = Math.max(2, first / 5);
    const around = (n: number) => {
      const inWindow = [...rss].filter(([polls]) => polls > n - width && polls <= n).map(([, mb]) => mb);
      // Polls counted two at a time (a timed one beside an `r`) can leave a narrow window empty.
      return inWindow.length > 0 ? median(inWindow) : [...rss].filter(([polls]) => polls <= n).at(-1)![1];
    };
    const atFirst = around(first);
    const atLast = around(last);
    ctx.log(
      `memory: ${atLoad.toFixed(1)} MB with 10k listed; ${atFirst.toFixed(1)} MB after ${first} polls, ${atLast.toFixed(1)} after ${last} (${perPoll.toFixed(0)} ms a poll)`,
    );
    return {
      rss_mb_10k: round(atFirst),
      rss_growth_mb_1000_polls: round(atLast - atFirst),
      rss_mb_10k_at_load: round(atLoad),
      rss_mb_after_last_polls: round(atLast),
      rss_polls_first: first,
      rss_polls_last: last,
      rss_messages: data.inboxes.big!.messages,
      rss_ms_per_poll: round(perPoll),
      rss_mb_baseline_bare_node: round(bareRss),
    };
  },
};
