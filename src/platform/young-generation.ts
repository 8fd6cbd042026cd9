import { givePoolBack } from './page-pool';

/**
 * The V8 flags the app sets for itself once its first frame is out (run-app.tsx), each read by V8 at
 * run time (docs/performance.md, "Where the app's memory goes"):
 * - `--semi-space-growth-factor=1`: the young generation is held at the size it has then; a long
 *   session's polls walked it up to 16 MB a semi-space.
 * - `--heap-growing-percent=25`: the next full collection when the old generation is 1.25x what
 *   survived the last one; with V8's own factor it grew to ~3x live (~20 MB more) over polls and new mail.
 * - `--no-maglev`: no new code from V8's mid tier (Maglev); hot code is still optimized, by Turbofan.
 *   Maglev compiles on up to two background threads, and glibc gives each its own malloc arena, whose
 *   pages it keeps: ~10 MB more resident after the first few hundred polls, for good. Code Maglev made
 *   before the flag stays in use.
 * Then V8's pool of freed pages is given back whenever it has grown (givePoolBack, page-pool.ts).
 * Set before the first frame, they would cost start-up: node:v8 takes a while to load (docs/performance.md, "Figures the code relies on").
 */
export const APP_V8_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=25', '--no-maglev'];

/**
 * Sets APP_V8_FLAGS (the app, once its first frame is out), then starts one full collection that V8 runs
 * as it schedules it (concurrent marking; it returns at once): V8 sets the old generation's next limit at
 * each full collection, and the one set during start-up (a few times what survived) would otherwise stand
 * until the old generation reached it, ~20 MB later under steady polls.
 */
export async function holdAppMemory(): Promise<void> {
  const [v8, vm] = await Promise.all([import('node:v8'), import('node:vm')]);
  v8.setFlagsFromString(APP_V8_FLAGS.join(' '));
  // V8's gc() taken from a fresh context while --expose-gc is on; the app's own global gets none.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'major'; execution: 'async' }) => void;
  v8.setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'async' });
  await givePoolBack(v8, POOL_GROWN_BYTES);
}

/** RSS grown since the last collection that reduced memory that makes the next one reduce it. */
const POOL_GROWN_BYTES = 4 * 1024 * 1024;

/**
 * A long-running process's heap held near what it keeps alive (`serve` once it listens, the app once its
 * first frame is out; docs/performance.md, "Where serve's memory goes", "Where the app's memory goes").
 *
 * Two of V8's defaults let a server that keeps ~20 MB of live objects reach ~280 MB resident under
 * steady mail (Node 24), and stay there:
 * - The young generation: V8 doubles the new space whenever much of it survives a scavenge (mail bodies
 *   in flight do), up to 64 MB a semi-space: 134 MB. Its maximum (--max-semi-space-size) is read only
 *   when the heap is made, so a process cannot lower it for itself; but the growth factor is read at each
 *   growth, so once the space has reached `youngBytes` the factor is set to 1 and it grows no more. A
 *   PerformanceObserver on collections looks after each one (nothing runs while idle) and lets go once
 *   the ceiling is set. V8 grows in doublings, so the space is held at the first size >= youngBytes.
 * - The old generation: V8 lets it grow to a factor of its live size between full collections that it
 *   picks from the GC's speed (up to 4x); `heapGrowingPercent` fixes that factor (25: the next full
 *   collection when the old generation is 1.25x what survived the last one). It is read at each
 *   collection, so setting it at run time takes effect.
 *
 * (The app sets the same two, and more, with holdAppMemory.)
 */
export async function holdHeapNearLive(youngBytes: number, heapGrowingPercent: number): Promise<void> {
  const v8 = await import('node:v8');
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
  const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  const hold = () => v8.setFlagsFromString('--semi-space-growth-factor=1');
  // Held at once where the space is big enough already (the app: 0), before anything else is loaded.
  if (newSpace() >= youngBytes) return hold();
  const { PerformanceObserver } = await import('node:perf_hooks');
  const observer = new PerformanceObserver(() => {
    if (newSpace() < youngBytes) return;
    hold();
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** The new space's size (both semi-spaces and their pages), bytes. */
export async function youngGenerationBytes(): Promise<number> {
  const v8 = await import('node:v8');
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}
