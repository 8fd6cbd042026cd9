// The event-loop stall probe: loaded into the app only by the html2mb figure, from outside, with
// `node --import bench/harness/stall-probe.mjs dist/cli.js ...` (no change to the program). A 2 ms
// interval timer notes, at every tick, when it ran and how long since the previous tick; a gap well
// over 2 ms is a turn of the event loop that kept everything else (keys, frames) waiting. On SIGUSR2 it
// writes the ticks noted since the last dump to TEMPMAIL_BENCH_STALL_FILE as JSON
// [[epochMs, gapMs], ...] (written aside, then renamed into place) and starts afresh.
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.TEMPMAIL_BENCH_STALL_FILE;
if (file) {
  const INTERVAL_MS = 2;
  const CAPACITY = 1 << 17; // over four minutes of ticks between two dumps
  const at = new Float64Array(CAPACITY);
  const gap = new Float64Array(CAPACITY);
  let n = 0;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (n < CAPACITY) {
      at[n] = performance.timeOrigin + now;
      gap[n] = now - last;
      n += 1;
    }
    last = now;
  }, INTERVAL_MS).unref();
  process.on('SIGUSR2', () => {
    const ticks = [];
    for (let i = 0; i < n; i++) ticks.push([at[i], gap[i]]);
    n = 0;
    writeFileSync(`${file}.tmp`, JSON.stringify(ticks));
    renameSync(`${file}.tmp`, file);
  });
}
