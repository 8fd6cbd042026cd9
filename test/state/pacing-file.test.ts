/**
 * The pacing file shared by the user's processes (src/state/pacing-file.ts): a turn stored further ahead
 * than two minutes (a clock that jumped back, a hand edit) is ignored, by a provider with a documented
 * rate and by one without alike. The clock is injected and the timers are fake: nothing waits.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFilePacer } from '../../src/state/pacing-file';

const T0 = 1_700_000_000_000;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tempmail-pacing-'));
  mkdirSync(join(dir, 'pacing'), { mode: 0o700 });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether `run` started its call once the timers due at once have run. */
async function startsAtOnce(run: (fn: () => Promise<void>) => Promise<void>): Promise<boolean> {
  let started = false;
  void run(async () => {
    started = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return started;
}

describe('createFilePacer', () => {
  it('ignores a turn stored ten minutes ahead, with a documented rate and without one', async () => {
    const ahead = String(T0 + 10 * 60_000);
    writeFileSync(join(dir, 'pacing', 'paced'), ahead);
    writeFileSync(join(dir, 'pacing', 'unpaced'), ahead);
    const paced = createFilePacer(dir, 'paced', 8, () => T0);
    const unpaced = createFilePacer(dir, 'unpaced', 0, () => T0);
    expect(await startsAtOnce((fn) => paced.run(fn))).toBe(true);
    // Without a documented rate only a 429's hold is read: the same rule holds for it.
    expect(await startsAtOnce((fn) => unpaced.run(fn))).toBe(true);
  });

  it('waits out a hold within the bound, and a start with a rate moves the stored turn on', async () => {
    writeFileSync(join(dir, 'pacing', 'unpaced'), String(T0 + 5_000));
    const unpaced = createFilePacer(dir, 'unpaced', 0, () => T0);
    let started = false;
    void unpaced.run(async () => {
      started = true;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(started).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(true);

    const paced = createFilePacer(dir, 'paced', 8, () => T0);
    expect(await startsAtOnce((fn) => paced.run(fn))).toBe(true);
    // Twice the documented spacing (PACING_MARGIN): the next start is 250 ms on.
    expect(Number(readFileSync(join(dir, 'pacing', 'paced'), 'utf8'))).toBe(T0 + 250);
  });
});
