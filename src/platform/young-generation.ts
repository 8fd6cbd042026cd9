/**
 * The app's young generation held at the size it has once its first frame is out (run-app.tsx): a long
 * session's polls must not walk it up to 16 MB a semi-space. The old generation keeps V8's own growing
 * factor in the app: collecting it at 1.25x live (as serve does) let the new space grow under a burst in
 * CI (test/e2e/young-generation.test.ts failed twice in full runs), so it is not set here.
 */
export async function holdYoungGeneration(): Promise<void> {
  const v8 = await import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

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
 * The app passes youngBytes 0: its new space is held at the size it has after the first frame (a poll's
 * garbage is short-lived, yet a poll every few seconds for hours walked it up to 16 MB a semi-space).
 * node:v8 takes a while to load (docs/performance.md, "Figures the code relies on"): the app calls this after its first frame,
 * never before it.
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
