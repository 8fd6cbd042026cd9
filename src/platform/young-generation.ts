/**
 * The app's young generation (V8's new space) kept at the size it has when the first frame is out.
 *
 * V8 doubles the new space, up to 16 MB a semi-space, whenever much of it survives a scavenge. A
 * poll's garbage is short-lived, but a poll every few seconds for hours still walks it up to its
 * maximum: ~20 MB of resident memory that the app never needs (the live heap is flat: ~16 MB after a
 * full GC at 100 and at 3,000 polls; bench figure `memory`). The growth factor is read each time V8
 * grows the space, so setting it to 1 at run time holds the space where it is; the maximum itself
 * (--max-semi-space-size) is read only when the heap is made and cannot be changed from inside.
 *
 * node:v8 costs ~2.5 ms to load: this runs after the first frame, never before it.
 */
export async function holdYoungGeneration(): Promise<void> {
  const v8 = await import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
