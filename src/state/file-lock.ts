/**
 * A short lock for a read-modify-write of a small private file that two processes may change at once
 * (two app windows): `.<name>.lock` created exclusively beside it, holding the owner's pid. A lock older
 * than LOCK_STALE_MS whose owner is no longer running was left by a process that died and is taken
 * over; after LOCK_WAIT_MS we go ahead anyway (the atomic rename still keeps the file whole; at worst
 * one concurrent change is lost). Used by the saved sessions and the read state.
 *
 * A lock that vanished between our failed create and our look at it was released, not abandoned: we
 * try the create again and never remove anything then (removing would delete the lock its owner, or a
 * third process, had just taken, and two writers would each lose the other's change).
 */
import { closeSync, openSync, readFileSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, isTempFileName } from './secure-file';

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 3_000;
// A temp file this old belongs to a write that crashed (a live one exists for milliseconds).
const TEMP_STALE_MS = 60_000;

/** Runs `fn` holding the lock of file `name` in `dir` (made private first). */
export function withFileLock<T>(dir: string, name: string, fn: () => T): T {
  ensurePrivateDir(dir);
  const lock = join(dir, `.${name}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const state = lockState(lock);
      if (state === 'gone') continue;
      if (state === 'abandoned' || Date.now() > deadline) {
        removeQuietly(lock);
        continue;
      }
      sleepSync(15);
    }
  }
  try {
    return fn();
  } finally {
    removeQuietly(lock);
  }
}

/** Removes temp files of `name` that a crashed write left in `dir`. Housekeeping: never throws. */
export function removeStaleTemps(dir: string, name: string): void {
  try {
    for (const entry of readdirSync(dir)) {
      if (!isTempFileName(entry) || !entry.startsWith(`.${name}.`)) continue;
      const path = join(dir, entry);
      if (isStale(path, TEMP_STALE_MS)) removeQuietly(path);
    }
  } catch {
    // The file itself is already written.
  }
}

/** 'gone': released meanwhile (try again at once); 'abandoned': old and its owner is not running. */
export function lockState(lock: string): 'held' | 'gone' | 'abandoned' {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lock).mtimeMs;
  } catch {
    return 'gone';
  }
  if (Date.now() - mtimeMs <= LOCK_STALE_MS) return 'held';
  return ownerRunning(lock) ? 'held' : 'abandoned';
}

// The pid in the lock, when it names a process that still runs. An unreadable or empty lock is judged by age alone.
function ownerRunning(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(path: string, maxAgeMs: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > maxAgeMs;
  } catch {
    return true;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already (another process took it over): fine.
  }
}

// Synchronous on purpose (see secure-file.ts): waiting a few ms for another process's lock blocks briefly.
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}
