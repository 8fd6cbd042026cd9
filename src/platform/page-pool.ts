/**
 * The pages V8 keeps after its heap shrank, given back once they add up (the app, once its first frame is
 * out; docs/performance.md, "Growth over new mail: V8's page pool").
 *
 * V8 (13.6; 12.4 alike) keeps the pages a full collection frees in a pool, resident, for the heap to take
 * again, and empties the pool only in a collection that reduces memory. Its memory reducer makes one 8 s
 * after the last full collection, so an app that polls or takes mail without such a pause held its heap's
 * highest point: +5-17 MB over 5,000 new messages, back down 8 s after they stopped. `--optimize-for-size`
 * makes every full collection V8 starts reduce memory, but left on it made `j` ~50% slower at p50 (its
 * young generation shrinks to 2 MB, and more). So it is set for one or two collections only: after a full
 * collection, when RSS has grown by `grownBytes` since the last one that reduced memory, the next ones
 * reduce it; then the flag goes, and the young generation grows back to the size it had here.
 */
import type { PerformanceEntry, PerformanceObserver as Observer } from 'node:perf_hooks';

type V8 = typeof import('node:v8');

const newSpaceOf = (v8: V8): number =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

const kindOf = (entry: PerformanceEntry): number | undefined =>
  (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;

/** Watches full collections for as long as the process runs (the observer keeps nothing alive). */
export async function givePoolBack(
  v8: V8,
  grownBytes: number,
  rss = () => process.memoryUsage.rss(),
): Promise<Observer> {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const youngBytes = newSpaceOf(v8);
  let floor = rss();
  let reducing = false;
  let regrowing = false;
  let reduced = 0;
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (regrowing && newSpaceOf(v8) >= youngBytes) {
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      regrowing = false;
    }
    if (!major) return;
    if (reducing) {
      // The first full collection may have started before the flag: the second one surely reduced.
      reduced += 1;
      if (rss() - floor >= grownBytes && reduced < 2) return;
      v8.setFlagsFromString('--no-optimize-for-size');
      reducing = false;
      floor = rss();
      if (newSpaceOf(v8) < youngBytes) {
        v8.setFlagsFromString('--semi-space-growth-factor=2');
        regrowing = true;
      }
    } else if (rss() - floor >= grownBytes) {
      v8.setFlagsFromString('--optimize-for-size');
      reducing = true;
      reduced = 0;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return observer;
}
