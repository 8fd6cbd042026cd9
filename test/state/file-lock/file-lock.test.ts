/**
 * The short file lock shared by the saved sessions and the read state: who may take over a lock, and
 * many processes changing one file at once losing nothing (CI once lost one mark of fifty: a lock
 * released between a waiter's failed create and its look at the lock was removed as "stale" after its
 * owner had taken it again).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockState, withFileLock } from '../../../src/state/file-lock';
import { openReadState, READ_STATE_FILE } from '../../../src/state/read-state';
import { waitFor } from '../../harness/wait';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tempmail-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const aged = (path: string, pid: number) => {
  writeFileSync(path, String(pid));
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
};
const markChild = fileURLToPath(new URL('../read-state-child.ts', import.meta.url));
const abandonedChild = fileURLToPath(new URL('./abandoned-lock-child.ts', import.meta.url));
const holderChild = fileURLToPath(new URL('./lock-holder-child.ts', import.meta.url));
/** A process marking `count` messages (ids from `first`) read on one shared address in `dir`; its exit code. */
const markIn = (where: string, first: number, count: number) =>
  new Promise<number | null>((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', markChild, where, String(first), String(count)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    p.on('error', reject);
    p.on('exit', resolve);
  });
/** The pid of a process that has exited (and was reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('file lock', () => {
  it('a missing lock was released, not abandoned: nothing is removed, the create is tried again', () => {
    expect(lockState(join(dir, '.x.lock'))).toBe('gone');
  });

  it('a fresh lock is held whoever wrote it', () => {
    const lock = join(dir, '.x.lock');
    writeFileSync(lock, String(deadPid()));
    expect(lockState(lock)).toBe('held');
  });

  it('an old lock is abandoned only when its owner no longer runs', () => {
    const lock = join(dir, '.x.lock');
    aged(lock, deadPid());
    expect(lockState(lock)).toBe('abandoned');
    // A stopped (Ctrl-Z) owner keeps its lock however old: its change would otherwise be lost.
    aged(lock, process.ppid);
    expect(lockState(lock)).toBe('held');
    aged(lock, Number.NaN);
    expect(lockState(lock)).toBe('abandoned');
  });

  it("a directory in the lock's place is an error, not a wait that never ends", () => {
    mkdirSync(join(dir, '.x.lock'));
    expect(() => withFileLock(dir, 'x', () => 'ran')).toThrow(/EISDIR/);
  });

  it('a guard no live process holds (its maker killed, a directory, dated in the future) holds up neither a takeover nor a release', () => {
    // Issue 36.3: a guard left by a process killed inside it cost each takeover and release 10 s; one
    // dated in the future or left as a directory hung it for ever.
    const lock = join(dir, '.x.lock');
    const guard = `${lock}.guard`;
    const later = new Date(Date.now() + 3_600_000);
    const leftovers: [string, () => void][] = [
      ['by a killed process', () => writeFileSync(guard, String(deadPid()))],
      ['naming no process', () => aged(guard, Number.NaN)],
      ['as a directory', () => mkdirSync(join(guard, 'inside'), { recursive: true })],
      ['in the future', () => writeFileSync(guard, String(process.ppid))],
    ];
    for (const [what, leave] of leftovers) {
      aged(lock, deadPid());
      leave();
      if (what === 'in the future') utimesSync(guard, later, later);
      const began = Date.now();
      expect(
        withFileLock(dir, 'x', () => 'ran'),
        what,
      ).toBe('ran');
      // Milliseconds; it was 10 s or for ever.
      expect(Date.now() - began, what).toBeLessThan(2_000);
      expect(readdirSync(dir), what).toEqual([]);
    }
  });

  it('takes over a lock left by a dead process, and leaves none behind', () => {
    const lock = join(dir, '.x.lock');
    aged(lock, deadPid());
    expect(withFileLock(dir, 'x', () => 'ran')).toBe('ran');
    expect(lockState(lock)).toBe('gone');
  });

  it('a lock held past the wait is taken over by one waiter at a time, and its late release removes only its own', async () => {
    // A window stuck for 5 s holding the lock (writing nothing), while three others mark messages. Past
    // the 3 s wait each waiter used to remove whatever lock it found (the one another waiter had just
    // taken too), and the stuck window's release removed a waiter's lock: two writers at once.
    const holder = spawn(process.execPath, ['--import', 'tsx', holderChild, dir, READ_STATE_FILE, '5000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const held = new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
      holder.on('error', reject);
      holder.on('exit', (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
    });
    const holderExit = new Promise<number | null>((resolve) => holder.on('exit', resolve));
    await held;
    expect(await Promise.all([markIn(dir, 0, 150), markIn(dir, 1000, 150), markIn(dir, 2000, 150)])).toEqual([0, 0, 0]);
    expect(await holderExit).toBe(0);
    expect(openReadState({ dir }).load('http://127.0.0.1:8025/', 'shared@x.test').size).toBe(450);
    // No lock, guard or temp file left behind.
    expect(readdirSync(dir)).toEqual([READ_STATE_FILE]);
  }, 30_000);

  it("three processes meeting a dead process's lock at once: one takes it over, none removes the new owner's", async () => {
    // Each judged the old lock abandoned; the first removed it and took the lock, and the next removed
    // that fresh lock as the abandoned one it had judged: two writers at once, a mark lost.
    const rounds = 40;
    const state = join(dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    const firsts = [0, 1000, 2000];
    const children = firsts.map(
      (first) =>
        new Promise<number | null>((resolve, reject) => {
          const p = spawn(process.execPath, ['--import', 'tsx', abandonedChild, dir, String(first), String(rounds)], {
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          p.on('error', reject);
          p.on('exit', resolve);
        }),
    );
    for (let r = 0; r < rounds; r++) {
      aged(join(state, `.${READ_STATE_FILE}.lock`), deadPid());
      writeFileSync(join(dir, `go-${r}`), '');
      await waitFor(() => firsts.every((first) => existsSync(join(dir, `done-${r}-${first}`))), {
        timeoutMs: 20_000,
        intervalMs: 2,
        message: `round ${r}`,
      });
    }
    expect(await Promise.all(children)).toEqual([0, 0, 0]);
    expect(openReadState({ dir: state }).load('http://127.0.0.1:8025/', 'shared@x.test').size).toBe(
      rounds * firsts.length,
    );
  }, 60_000);

  it('three processes marking 150 messages each on one address at once lose no mark', async () => {
    expect(await Promise.all([markIn(dir, 0, 150), markIn(dir, 1000, 150), markIn(dir, 2000, 150)])).toEqual([0, 0, 0]);
    expect(openReadState({ dir }).load('http://127.0.0.1:8025/', 'shared@x.test').size).toBe(450);
  });
});
