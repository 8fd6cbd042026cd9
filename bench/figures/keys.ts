/**
 * key_p95_ms_20 and key_p95_ms_10k: how fast the inbox answers a key, 20 and 10,000 messages listed.
 *
 * One sample: the time from writing `j` to the pty until the end mark (ESC[?2026l) of the first frame
 * in which the selected (inverse-video) row has moved. The app runs in an 80x24 pty against a remote
 * `serve` holding a seeded inbox (bench/seed), opened from the picker as a returning user does, then
 * left 1.5 s for the background fetch of the newest bodies. Keys go in runs of ten `j` (timed) and ten
 * `k` (waited for, not timed). Each `j` goes 60-160 ms (random) after the previous key's frame: someone
 * tapping j quickly, and the app's own timers (the countdown each second, polls) fall anywhere in the
 * gap. (The app lets Ink draw at most 60 frames a second: a key less than ~17 ms after a frame waits for
 * the next slot; taps mostly do not meet that.)
 * p50/p95/max over 200 samples (20 with --quick) per inbox; 20 messages first, then 10,000 (2,000 with
 * --quick, `key_big_messages`), each in its own app.
 */
import type { Figure } from './figure';
import { keyToFrame, openInboxApp } from '../harness/inbox-app';
import type { PtyApp } from '../harness/pty-app';
import { startServe } from '../harness/serve-proc';
import { randomBetween, sleep, summarize, summaryKeys, round } from '../harness/stats';
import { dataset } from '../seed/datasets';
import { listInboxes, QUICK_BIG } from '../seed/inboxes';

/** `n` timed `j` presses, in runs of ten down and ten (untimed) back up. */
async function jSamples(app: PtyApp, n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    for (let i = 0; i < 10 && out.length < n; i++) {
      await sleep(randomBetween(60, 160));
      out.push(await keyToFrame(app, 'j'));
    }
    for (let i = 0; i < 10; i++) {
      await sleep(40);
      await keyToFrame(app, 'k');
    }
  }
  return out;
}

export const keys: Figure = {
  name: 'key',
  keys: ['key_p95_ms_20', 'key_p95_ms_10k'],
  async run(ctx) {
    const samples = ctx.quick ? 20 : 200;
    const data = await dataset(listInboxes(ctx.quick ? QUICK_BIG : 10_000), ctx.log);
    const serve = await startServe({ dataDir: data.dataDir });
    ctx.defer(() => serve.stop());
    const out: Record<string, number> = {};
    for (const [label, inbox] of [
      ['20', data.inboxes.small!],
      ['10k', data.inboxes.big!],
    ] as const) {
      const app = await openInboxApp({ baseUrl: serve.baseUrl, inbox, loaded: (s) => /Order \d{5} shipped/.test(s) });
      try {
        await sleep(1_500);
        const s = summarize(await jSamples(app, samples));
        ctx.log(
          `key (${inbox.messages} messages): p50 ${s.p50.toFixed(1)} p95 ${s.p95.toFixed(1)} max ${s.max.toFixed(1)} ms`,
        );
        out[`key_p95_ms_${label}`] = round(s.p95);
        Object.assign(out, summaryKeys(`key_ms_${label}`, s));
      } finally {
        await app.stop();
      }
    }
    out.key_big_messages = data.inboxes.big!.messages;
    return out;
  },
};
