/**
 * How long a 2 MB HTML message takes to render, as ratios against JSON.parse of the same bytes
 * measured in the same run (so a slow or busy machine scales both). Run: `npx tsx bench/html.ts`.
 *
 * full    renderBody with no cap: what blocking the event loop on the whole message would cost
 * capped  renderBody as the viewer calls it (first 256 KB, with a note)
 * async   renderBodyAsync: total time, and the longest the event loop was blocked meanwhile
 */

import { pathToFileURL } from 'node:url';
import { DEFAULT_MAX_BYTES, renderBody, renderBodyAsync } from '../src/content/html-text';
import { newsletterHtml } from './html-fixture';

export interface HtmlBenchResult {
  /** UTF-8 size of the generated HTML. */
  bytes: number;
  baselineMs: number;
  fullMs: number;
  cappedMs: number;
  asyncMs: number;
  asyncMaxBlockMs: number;
}

function best(runs: number, fn: () => void): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

/** Longest gap between event-loop turns while `work` runs: what a keypress would wait at worst. */
async function maxBlock(work: () => Promise<unknown>): Promise<{ totalMs: number; maxBlockMs: number }> {
  let last = performance.now();
  let worst = 0;
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = performance.now();
  await work();
  const totalMs = performance.now() - start;
  running = false;
  return { totalMs, maxBlockMs: worst };
}

/** Runs the measurement on a generated 2 MB newsletter and returns the numbers. */
export async function benchHtml(bytes = 2 * 1024 * 1024): Promise<HtmlBenchResult> {
  const html = newsletterHtml(bytes);
  const json = JSON.stringify({ html });
  const input = { bodyHtml: html, bodyText: null };
  // Warm-up: the first conversion pays for JIT and selector compilation, which the app pays once.
  renderBody({ bodyHtml: html.slice(0, 64 * 1024), bodyText: null }, 80);
  const baselineMs = best(5, () => JSON.parse(json));
  const fullMs = best(3, () => renderBody(input, 80, { maxBytes: Infinity }));
  const cappedMs = best(3, () => renderBody(input, 80));
  let asyncMs = Infinity;
  let asyncMaxBlockMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const r = await maxBlock(() => renderBodyAsync(input, 80));
    asyncMs = Math.min(asyncMs, r.totalMs);
    asyncMaxBlockMs = Math.min(asyncMaxBlockMs, r.maxBlockMs);
  }
  return { bytes: Buffer.byteLength(html), baselineMs, fullMs, cappedMs, asyncMs, asyncMaxBlockMs };
}

/** One line: times in ms and each as a multiple of the JSON.parse baseline. */
export function formatHtmlBench(r: HtmlBenchResult): string {
  const x = (ms: number) => `${ms.toFixed(1)}ms (${(ms / r.baselineMs).toFixed(1)}x)`;
  return (
    `html-render ${(r.bytes / 1048576).toFixed(1)}MB: baseline JSON.parse ${r.baselineMs.toFixed(1)}ms; ` +
    `full ${x(r.fullMs)}; capped@${DEFAULT_MAX_BYTES / 1024}KB ${x(r.cappedMs)}; ` +
    `async total ${x(r.asyncMs)}, longest block ${x(r.asyncMaxBlockMs)}`
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatHtmlBench(await benchHtml()));
}
