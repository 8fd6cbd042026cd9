/**
 * The pacing file shared by the user's processes (src/client/pacing/pacing-file.ts). Issue 36, point 5: a turn
 * stored further ahead than the rate can need (a clock that jumped back, a hand edit) counts as one
 * interval from now, and a wait of a second or more is said. Point 4: the file is read as the saved
 * sessions are: a FIFO at its path does not hang the call (it hung for ever, even for a provider that
 * never paces), a link there is not followed (its target was overwritten), a huge file is not read whole.
 * The clock is injected and the timers are fake where a test waits: nothing really waits.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFilePacer } from '../../../src/client/pacing/pacing-file';

const T0 = 1_700_000_000_000;
let dir: string;
const at = (name: string) => join(dir, 'pacing', name);
const storedNext = (name: string) => Number(readFileSync(at(name), 'utf8').split(' ')[0]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tempmail-pacing-'));
  mkdirSync(join(dir, 'pacing'), { mode: 0o700 });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `run`; `after(ms)`: whether its call has started once the timers due within `ms` more have run (fake timers). */
function starting(run: (fn: () => Promise<void>) => Promise<void>) {
  let started = false;
  void run(async () => {
    started = true;
  });
  return async (ms: number): Promise<boolean> => {
    await vi.advanceTimersByTimeAsync(ms);
    return started;
  };
}

describe('createFilePacer: turns ahead of the clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });

  it('a turn stored two minutes ahead, or written by a clock ahead of ours, is one interval from now, and the wait is not said', async () => {
    const said: number[] = [];
    writeFileSync(at('paced'), String(T0 + 119_000));
    writeFileSync(at('stepped'), `${T0 + 5_000} ${T0 + 60_000}\n`);
    writeFileSync(at('unpaced'), String(T0 + 119_000));
    for (const name of ['paced', 'stepped']) {
      const pacer = createFilePacer(dir, name, 8, { now: () => T0, onWait: (s) => said.push(s) });
      const startedAfter = starting((fn) => pacer.run(fn));
      expect(await startedAfter(249), name).toBe(false);
      expect(await startedAfter(1), name).toBe(true);
      // One interval (twice mail.tm's 125 ms) on, and the next turn one further.
      expect(storedNext(name), name).toBe(T0 + 500);
    }
    // Without a documented rate only a 429's hold is read: one ahead of what a hold can be is none.
    const unpaced = createFilePacer(dir, 'unpaced', 0, { now: () => T0, onWait: (s) => said.push(s) });
    expect(await starting((fn) => unpaced.run(fn))(0)).toBe(true);
    expect(said).toEqual([]);
  });

  it('waits out a hold within the bound, saying so, and a start with a rate moves the stored turn on', async () => {
    const said: number[] = [];
    writeFileSync(at('unpaced'), String(T0 + 5_000));
    const unpaced = createFilePacer(dir, 'unpaced', 0, { now: () => T0, onWait: (s) => said.push(s) });
    const startedAfter = starting((fn) => unpaced.run(fn));
    expect(await startedAfter(4_999)).toBe(false);
    expect(said).toEqual([5]);
    expect(await startedAfter(1)).toBe(true);

    const paced = createFilePacer(dir, 'paced', 8, { now: () => T0, onWait: (s) => said.push(s) });
    expect(await starting((fn) => paced.run(fn))(0)).toBe(true);
    // Twice the documented spacing (PACING_MARGIN): the next start is 250 ms on; a usual turn is not said.
    expect(readFileSync(at('paced'), 'utf8')).toBe(`${T0 + 250} ${T0}\n`);
    expect(said).toEqual([5]);
  });
});

describe('createFilePacer: what is at the path', () => {
  it('a FIFO at the path does not hang a call, paced or not, and a paced one replaces it', async () => {
    execFileSync('mkfifo', [at('paced')]);
    execFileSync('mkfifo', [at('unpaced')]);
    expect(await createFilePacer(dir, 'unpaced', 0).run(async () => 'ran')).toBe('ran');
    expect(await createFilePacer(dir, 'paced', 8).run(async () => 'ran')).toBe('ran');
    expect(statSync(at('paced')).isFile()).toBe(true);
  });

  it('a symbolic link at the path is not followed: its target stays as it was', async () => {
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'keep me\n');
    symlinkSync(outside, at('paced'));
    expect(await createFilePacer(dir, 'paced', 8).run(async () => 'ran')).toBe('ran');
    expect(readFileSync(outside, 'utf8')).toBe('keep me\n');
    expect(statSync(at('paced')).isFile()).toBe(true);
  });

  it('a huge file is not read whole: it counts as no turn and is replaced', async () => {
    // Half a GiB (sparse: no disk used), which a whole read brings into memory.
    execFileSync('truncate', ['-s', '512M', at('paced')]);
    const peakKb = process.resourceUsage().maxRSS;
    expect(await createFilePacer(dir, 'paced', 8).run(async () => 'ran')).toBe('ran');
    expect(process.resourceUsage().maxRSS - peakKb).toBeLessThan(128 * 1024);
    expect(statSync(at('paced')).size).toBeLessThan(100);
  });
});
