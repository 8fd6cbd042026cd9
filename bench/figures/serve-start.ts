/**
 * serve_start_ms_100k and serve_rss_mb_100k: `serve` restarting on a data dir that holds 100,000
 * messages (200 inboxes of 500, seeded through the store: bench/seed), 2,000 with --quick.
 *
 * One run: spawn of `node dist/cli.js serve --data-dir <dir>` until it prints its `HTTP ...` line
 * (both listeners are up by then), and its VmRSS read from /proc at that moment; then SIGTERM and wait
 * for the exit. Median of 10 runs (3 with --quick); the slowest is `serve_start_ms_100k_max` (the first
 * run after a fresh seed pays for anything the store builds once). Runs go in turns with the same on
 * an empty data dir, the baseline (`serve_start_ms_empty`, `serve_rss_mb_empty`). The data dir stays
 * in the page cache between runs, as on a server that restarts; a cold disk is not measured.
 */
import type { Figure } from './figure';
import { startServe } from '../harness/serve-proc';
import { median, round } from '../harness/stats';
import { tempDir } from '../harness/temp';
import { dataset } from '../seed/datasets';
import { serveStore } from '../seed/inboxes';

async function startOnce(dataDir: string): Promise<{ ms: number; rss: number }> {
  const serve = await startServe({ dataDir, rssAtListen: true, timeoutMs: 300_000 });
  await serve.stop();
  return { ms: serve.startMs, rss: serve.rssAtListenMb! };
}

export const serveStart: Figure = {
  name: 'serve',
  keys: ['serve_start_ms_100k', 'serve_rss_mb_100k'],
  async run(ctx) {
    const total = ctx.quick ? 2_000 : 100_000;
    const runs = ctx.quick ? 3 : 10;
    const data = await dataset(serveStore(total), ctx.log);
    const empty = tempDir('tempmail-bench-serve-empty-');
    const full: { ms: number; rss: number }[] = [];
    const base: { ms: number; rss: number }[] = [];
    for (let i = 0; i < runs; i++) {
      base.push(await startOnce(empty));
      full.push(await startOnce(data.dataDir));
      ctx.log(
        `serve start ${i + 1}/${runs}: ${full.at(-1)!.ms.toFixed(0)} ms, ${full.at(-1)!.rss.toFixed(0)} MB with ${total} messages`,
      );
    }
    return {
      serve_start_ms_100k: round(median(full.map((r) => r.ms))),
      serve_rss_mb_100k: round(median(full.map((r) => r.rss))),
      serve_start_ms_100k_max: round(Math.max(...full.map((r) => r.ms))),
      serve_start_messages: total,
      serve_start_runs: runs,
      serve_start_ms_empty: round(median(base.map((r) => r.ms))),
      serve_rss_mb_empty: round(median(base.map((r) => r.rss))),
    };
  },
};
