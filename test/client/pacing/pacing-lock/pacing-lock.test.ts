/**
 * Issue 36, point 3: nothing a client that is gone leaves in `state/pacing/` holds the next command up.
 * Before, a `.<name>.lock.guard` left by a client killed inside it cost each command 10 s, one dated in
 * the future or left as a directory hung it for ever, and a lock left by a client killed inside its turn
 * cost 3 s; the wait blocked the event loop (Atomics.wait). A live holder is still waited on, within a
 * bound, past which the request goes without pacing and says so.
 */
import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFilePacer, type FilePacerOptions } from '../../../../src/client/pacing/pacing-file';

const child = fileURLToPath(new URL('./pacing-child.ts', import.meta.url));
// Far above what a start takes here (milliseconds), far below the waits this used to cost (3 s, 10 s, for ever).
const BOUND_MS = 2_000;

let dir: string;
let pacing: string;
const children: ChildProcessByStdio<null, Readable, null>[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tempmail-pacing-lock-'));
  pacing = join(dir, 'pacing');
  mkdirSync(pacing, { mode: 0o700 });
});
afterEach(() => {
  for (const p of children.splice(0)) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;
const future = (path: string) => {
  const later = new Date(Date.now() + 3_600_000);
  utimesSync(path, later, later);
};

/** A child process in `mode`; resolves once it said "held" (hang) or exited (race). */
function start(mode: 'hang' | 'race', count = 0) {
  const p = spawn(process.execPath, ['--import', 'tsx', child, dir, 'x', mode, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(p);
  const exited = new Promise<number | null>((resolve, reject) => {
    p.on('error', reject);
    p.on('exit', resolve);
  });
  const held = new Promise<void>((resolve, reject) => {
    p.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
    p.on('exit', (code) => reject(new Error(`the child exited (${code}) before holding the lock`)));
  });
  // Only a `hang` child is waited on to hold: a `race` child exits without, unheard.
  held.catch(() => undefined);
  return { p, held, exited };
}

/**
 * 'ran' when a paced call ran within BOUND_MS, else 'stuck' (a wait on the event loop is cut off there; a
 * wait that blocked the event loop, as Atomics.wait did, is measured once it ends).
 */
async function runsWithin(options: FilePacerOptions = {}): Promise<'ran' | 'stuck'> {
  const pacer = createFilePacer(dir, 'x', 8, options);
  const began = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<'stuck'>((resolve) => {
    timer = setTimeout(() => resolve('stuck'), BOUND_MS);
  });
  try {
    const result = await Promise.race([pacer.run(async () => 'ran' as const), stuck]);
    return Date.now() - began < BOUND_MS ? result : 'stuck';
  } finally {
    clearTimeout(timer);
  }
}

describe('the pacing lock', () => {
  it('a lock left by a client killed with SIGKILL inside its turn does not hold the next start', async () => {
    const hang = start('hang');
    await hang.held;
    hang.p.kill('SIGKILL');
    await hang.exited;
    expect(readFileSync(join(pacing, '.x.lock'), 'utf8')).toMatch(new RegExp(`^${hang.p.pid} `));
    expect(await runsWithin()).toBe('ran');
  }, 30_000);

  it('a lock and a guard dated in the future, left by a process that is gone, are taken over', async () => {
    writeFileSync(join(pacing, '.x.lock'), `${deadPid()} 1 ${hostname()} 1.1`);
    writeFileSync(join(pacing, '.x.lock.guard'), '');
    future(join(pacing, '.x.lock'));
    future(join(pacing, '.x.lock.guard'));
    expect(await runsWithin()).toBe('ran');
  });

  it('a guard left as a directory, and a lock left as one, hold nothing up', async () => {
    writeFileSync(join(pacing, '.x.lock'), `${deadPid()} 1 ${hostname()} 1.1`);
    mkdirSync(join(pacing, '.x.lock.guard'));
    expect(await runsWithin()).toBe('ran');
    rmSync(join(pacing, '.x.lock'), { force: true });
    mkdirSync(join(pacing, '.x.lock', 'inside'), { recursive: true });
    expect(await runsWithin()).toBe('ran');
    // The next turn was kept in the file: the pacing went on through the lock, not around it.
    expect(readFileSync(join(pacing, 'x'), 'utf8')).toMatch(/^\d+ \d+\n$/);
  });

  it('a live holder is waited on up to the bound, then the call goes without pacing and says who holds the lock', async () => {
    const hang = start('hang');
    await hang.held;
    const skipped: string[] = [];
    let ticks = 0;
    const clock = setInterval(() => ticks++, 20);
    try {
      expect(await runsWithin({ lockWaitMs: 300, onSkip: (heldBy, lock) => skipped.push(`${heldBy} ${lock}`) })).toBe(
        'ran',
      );
    } finally {
      clearInterval(clock);
    }
    expect(skipped).toEqual([`process ${hang.p.pid} ${join(pacing, '.x.lock')}`]);
    // The wait was asynchronous: this process's timers ran meanwhile.
    expect(ticks).toBeGreaterThan(0);
  }, 30_000);

  it('two processes taking 100 turns each at once lose none: every turn was taken under the lock', async () => {
    const a = start('race', 100);
    const b = start('race', 100);
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    // On a clock standing at T0, each turn moves the next one on by 2 ms (1000 a second, twice as wide):
    // a turn taken by both at once would have been counted once.
    const [next] = readFileSync(join(pacing, 'x'), 'utf8').split(' ');
    expect(Number(next)).toBe(1_700_000_000_000 + 200 * 2);
  }, 60_000);
});
