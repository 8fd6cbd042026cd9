/**
 * A short lock for a read-modify-write of a small private file that two processes may change at once
 * (two app windows): `.<name>.lock` created exclusively beside it, holding the owner's pid and a token
 * that names this one taking of it. A lock older than LOCK_STALE_MS whose owner is no longer running was
 * left by a process that died and is taken over; one that stays the same lock for LOCK_WAIT_MS (its
 * owner is stopped, or its disk hangs) is taken over too (the atomic rename still keeps the file whole;
 * at worst the stuck owner's change, or the others' made meanwhile, is lost). Used by the saved sessions
 * and the read state.
 *
 * Nothing is ever removed on a guess, since removing the lock another process has just taken lets two
 * writers run at once and each lose the other's change:
 * - a lock that vanished between our failed create and our look at it was released: we try again;
 * - a takeover removes the lock only if it still holds the text we judged (the same taking), checked
 *   and removed under `.<name>.lock.guard` (O_EXCL, holding its maker's pid), so two waiters that judged
 *   the same lock cannot remove it and then each other's fresh one; a guard no live process holds (its
 *   maker gone, a directory, dated in the future) is removed at once, whatever instant its maker died at;
 * - the wait counts only while the same lock stays: waiters taking turns are progress, not a hang;
 * - a release removes the lock only while it is still ours (under the guard too): a stuck owner that
 *   wakes up after a takeover leaves the new owner's lock alone.
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, isTempFileName } from './secure-file';

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 3_000;
// A guard is held for a read and an unlink; one this old was left by a process that died holding it.
const GUARD_STALE_MS = 10_000;
// Two readings of the same clock a moment apart: not a file dated in the future.
const CLOCK_SLACK_MS = 1_000;
// A temp file this old belongs to a write that crashed (a live one exists for milliseconds).
const TEMP_STALE_MS = 60_000;

let takings = 0;

/** Runs `fn` holding the lock of file `name` in `dir` (made private first). */
export function withFileLock<T>(dir: string, name: string, fn: () => T): T {
  ensurePrivateDir(dir);
  const lock = join(dir, `.${name}.lock`);
  // Unique to this taking: our pid (the owner check reads it) and what tells our takings apart.
  const mine = `${process.pid} ${process.hrtime.bigint()}.${++takings}`;
  let waitingOn: string | undefined;
  let since = 0;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const seen = inspectLock(lock);
      if (seen.state === 'gone') continue;
      if (seen.text !== waitingOn) {
        waitingOn = seen.text;
        since = Date.now();
      }
      if (seen.state === 'abandoned' || Date.now() - since > LOCK_WAIT_MS) {
        removeIfStill(lock, seen.text);
        waitingOn = undefined;
        continue;
      }
      sleepSync(15);
    }
  }
  try {
    return fn();
  } finally {
    removeIfStill(lock, mine);
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
  return inspectLock(lock).state;
}

interface LockSeen {
  state: 'held' | 'gone' | 'abandoned';
  /** What the lock held when looked at: the same taking has the same text. */
  text: string;
}

// Age and text from one open file, so both describe the same taking of the lock.
function inspectLock(lock: string): LockSeen {
  let fd: number;
  try {
    fd = openSync(lock, 'r');
  } catch (error) {
    // Anything but "not there" (a directory or an unreadable file in its place) would never go away: said.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'gone', text: '' };
    throw error;
  }
  let mtimeMs: number;
  let text: string;
  try {
    mtimeMs = fstatSync(fd).mtimeMs;
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  // Dated in the future, its age never grows: judged by its owner alone.
  const age = Date.now() - mtimeMs;
  if (age >= -CLOCK_SLACK_MS && age <= LOCK_STALE_MS) return { state: 'held', text };
  return { state: ownerRunning(text) ? 'held' : 'abandoned', text };
}

// The pid in the lock, when it names a process that still runs. An empty or unreadable pid is judged by age alone.
function ownerRunning(text: string): boolean {
  const pid = Number(text.split(' ')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `lock` only while it holds `text`, under the guard shared by every takeover and release. Never throws. */
function removeIfStill(lock: string, text: string): void {
  const guard = `${lock}.guard`;
  for (;;) {
    try {
      const fd = openSync(guard, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      // No guard can be made here (a read-only dir): the lock could not have been made either.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
      if (guardLeft(guard)) removeLeft(guard);
      else sleepSync(1);
    }
  }
  try {
    let now: string | undefined;
    try {
      now = readFileSync(lock, 'utf8');
    } catch {
      now = undefined;
    }
    if (now === text) removeQuietly(lock);
  } finally {
    removeQuietly(guard);
  }
}

/**
 * Whether the guard at `guard` is one no live process holds: not a regular file (a directory never goes
 * away by itself), dated in the future (its age would never grow), older than GUARD_STALE_MS, or naming a
 * process that does not run. An empty guard a moment old is its maker's, between create and write.
 */
function guardLeft(guard: string): boolean {
  let st: Stats;
  let text: string;
  try {
    st = lstatSync(guard);
    if (!st.isFile()) return true;
    text = readFileSync(guard, 'utf8');
  } catch {
    return false;
  }
  const age = Date.now() - st.mtimeMs;
  if (age < -CLOCK_SLACK_MS || age > GUARD_STALE_MS) return true;
  if (text === '') return age > CLOCK_SLACK_MS;
  return !ownerRunning(text);
}

// Removes what a process that is gone left at `path`, a directory too. Never throws.
function removeLeft(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // Taken over by another waiter meanwhile: fine.
  }
}

// A file that is not there is not stale: it was removed by its owner, and the name may be taken again
// at any moment (removing "it" then would remove someone else's guard).
function isStale(path: string, maxAgeMs: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > maxAgeMs;
  } catch {
    return false;
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
