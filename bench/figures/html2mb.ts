/**
 * html2mb_open_ms and html2mb_max_stall_ms: opening a 2 MB HTML newsletter.
 *
 * `serve` holds a seeded inbox: 11 newsletters (5 with --quick), each 2 MB of table-layout HTML
 * (bench/html-fixture.ts) whose text begins "Newsletter N starts here", under 5 small newer messages,
 * so the app's background fetch of the newest unread bodies never takes a newsletter: each is fetched
 * when opened, as mail that just arrived is. The app (80x24 pty, remote serve) opens them one after
 * another, selected with `j`, Esc back to the list after each. One open gives two samples:
 * - open: from writing Enter to the pty until the end mark of the first frame showing "Newsletter N
 *   starts here" (fetch, HTML to text and drawing, all included);
 * - stall: the app's longest event-loop stall from Enter until 500 ms after that frame (so the work
 *   that follows the first screen, such as code and link detection, counts). The app cannot see its
 *   own stalls, so a probe is loaded into it from outside (`node --import
 *   bench/harness/stall-probe.mjs dist/cli.js`, no change to the program): a 2 ms timer; a stall is the
 *   gap between two of its ticks minus the 2 ms it asked for.
 * The app keeps every opened body, so one app opening a hundred 2 MB messages measures its growing heap
 * more than the opening: 10 apps open 11 each instead (1 app, 5 with --quick). The first open of each app
 * also loads the app's HTML reader; it is reported apart (html2mb_first_open_ms_*), and the other 100
 * (4) are the figure: html2mb_open_ms is their p95, html2mb_max_stall_ms the p95 of their per-open
 * longest stall (p50 and max under other keys). Also: how much the app's RSS grows per open (median
 * over the apps of the growth from the first open to the last, per open).
 * Baseline, same run: html-to-text's `convert()` with its defaults on the same 2 MB HTML, in this
 * process (median of 10 after a warm-up; 3 with --quick).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convert } from 'html-to-text';
import type { Figure } from './figure';
import { isInbox, keyToFrame, openInboxApp } from '../harness/inbox-app';
import { rssMb } from '../harness/proc';
import type { PtyApp } from '../harness/pty-app';
import { startServe } from '../harness/serve-proc';
import { median, round, sleep, summarize, summaryKeys } from '../harness/stats';
import { tempDir } from '../harness/temp';
import { dataset } from '../seed/datasets';
import { DECOYS, newsletterInbox } from '../seed/inboxes';
import { newsletterHtmlFor, newsletterOpening } from '../seed/mail-samples';
import type { SeededInbox } from '../seed/seed-store';

const PROBE = fileURLToPath(new URL('../harness/stall-probe.mjs', import.meta.url));
const PROBE_INTERVAL_MS = 2;
const AFTER_MS = 500;

/** Asks the probe for the ticks since its last dump. */
async function probeTicks(app: PtyApp, file: string): Promise<[number, number][]> {
  rmSync(file, { force: true });
  process.kill(app.pid, 'SIGUSR2');
  const deadline = performance.now() + 10_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline) throw new Error('the stall probe did not answer');
    await sleep(5);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as [number, number][];
}

function baselineConvert(runs: number): number {
  const html = newsletterHtmlFor(1);
  convert(html);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    convert(html);
    times.push(performance.now() - t);
  }
  return median(times);
}

interface Open {
  ms: number;
  stallMs: number;
}

/** Opens the selected newsletter: Enter to its text on screen, and the longest stall meanwhile. */
async function openSelected(app: PtyApp, stallFile: string): Promise<Open> {
  const n = Number(/Newsletter (\d+)/.exec(await app.selection())?.[1]);
  if (!n) throw new Error(`the selected row is not a newsletter:\n${await app.screen()}`);
  await app.settle();
  await probeTicks(app, stallFile);
  const t0 = app.write('\r');
  const shown = await app.nextFrame(
    (f) => f.at > t0 && f.text.includes(newsletterOpening(n)),
    60_000,
    `"${newsletterOpening(n)}"`,
  );
  await sleep(AFTER_MS);
  const from = performance.timeOrigin + t0;
  const to = performance.timeOrigin + shown.at + AFTER_MS;
  const inWindow = (await probeTicks(app, stallFile)).filter(([end, gap]) => end > from && end - gap < to);
  if (inWindow.length === 0) throw new Error('the stall probe noted no tick while the message opened');
  await app.settle();
  app.write('\x1b');
  await app.until(isInbox, 30_000, 'the inbox again after Esc');
  return { ms: shown.at - t0, stallMs: Math.max(0, ...inWindow.map(([, gap]) => gap - PROBE_INTERVAL_MS)) };
}

/** One app: each newsletter opened in turn, top to bottom; the first open apart. */
async function oneApp(
  baseUrl: string,
  inbox: SeededInbox,
  count: number,
): Promise<{ opens: Open[]; rssGrowth: number }> {
  const stallFile = join(tempDir('tempmail-bench-probe-'), 'stalls.json');
  const app = await openInboxApp({
    baseUrl,
    inbox,
    loaded: (s) => /Newsletter \d+/.test(s),
    nodeArgs: ['--import', PROBE],
    env: { TEMPMAIL_BENCH_STALL_FILE: stallFile },
  });
  try {
    await sleep(1_500);
    for (let i = 0; i < DECOYS; i++) await keyToFrame(app, 'j');
    const opens: Open[] = [];
    let rssAfterFirst = 0;
    for (let i = 0; i < count; i++) {
      if (i > 0) {
        await app.settle();
        await keyToFrame(app, 'j');
      }
      opens.push(await openSelected(app, stallFile));
      if (i === 0) rssAfterFirst = rssMb(app.pid);
    }
    return { opens, rssGrowth: rssMb(app.pid) - rssAfterFirst };
  } finally {
    await app.stop();
  }
}

export const html2mb: Figure = {
  name: 'html',
  keys: ['html2mb_open_ms', 'html2mb_max_stall_ms'],
  async run(ctx) {
    const apps = ctx.quick ? 1 : 10;
    const perApp = ctx.quick ? 5 : 11;
    const convertMs = baselineConvert(ctx.quick ? 3 : 10);
    const data = await dataset(newsletterInbox(perApp), ctx.log);
    const serve = await startServe({ dataDir: data.dataDir });
    ctx.defer(() => serve.stop());
    const first: Open[] = [];
    const warm: Open[] = [];
    const growth: number[] = [];
    for (let a = 0; a < apps; a++) {
      const { opens, rssGrowth } = await oneApp(serve.baseUrl, data.inboxes.news!, perApp);
      first.push(opens[0]!);
      warm.push(...opens.slice(1));
      growth.push(rssGrowth);
    }
    const open = summarize(warm.map((o) => o.ms));
    const stall = summarize(warm.map((o) => o.stallMs));
    const firstOpen = summarize(first.map((o) => o.ms));
    ctx.log(
      `html2mb: open p50 ${open.p50.toFixed(0)} p95 ${open.p95.toFixed(0)} ms; longest stall p50 ${stall.p50.toFixed(0)} p95 ${stall.p95.toFixed(0)} ms; first open p50 ${firstOpen.p50.toFixed(0)} ms; raw convert ${convertMs.toFixed(0)} ms`,
    );
    return {
      html2mb_open_ms: round(open.p95),
      html2mb_max_stall_ms: round(stall.p95),
      ...summaryKeys('html2mb_open_ms', open),
      ...summaryKeys('html2mb_stall_ms', stall),
      ...summaryKeys('html2mb_first_open_ms', firstOpen),
      html2mb_first_stall_ms_p50: round(median(first.map((o) => o.stallMs))),
      html2mb_rss_growth_mb_per_open: round(median(growth) / (perApp - 1)),
      html2mb_baseline_convert_ms: round(convertMs),
      html2mb_open_p50_over_convert: round(open.p50 / convertMs),
    };
  },
};
