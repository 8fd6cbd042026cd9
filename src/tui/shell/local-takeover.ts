/**
 * How a borrower of the local service notices that the process running it is gone: it watches the data
 * directory's lock. A clean stop removes the lock (seen at once through fs.watch); kill -9 leaves it,
 * naming a process that no longer runs (seen by the check every second, which also covers file systems
 * where fs.watch says nothing). Either way `takeOver` is called, and again while it answers false.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { LockHolder } from '../../platform/data-lock';

export interface HolderWatch {
  stop(): void;
}

const CHECK_MS = 1000;
const LOCK_FILE = 'service.lock';

/** True while the lock of `dataDir` still names `holder` and its process runs. */
async function stillHeld(dataDir: string, holder: LockHolder): Promise<boolean> {
  // Imported here: the app's path to a configured service never loads the server code.
  const { holderAlive, readDataDirLock } = await import('../../platform/data-lock');
  let lock: LockHolder | undefined;
  try {
    lock = await readDataDirLock(dataDir);
  } catch {
    return true; // unreadable this moment (EACCES, EISDIR): nothing to act on; ask again later
  }
  return (
    lock !== undefined && lock.pid === holder.pid && lock.startedAt === holder.startedAt && holderAlive(dataDir, lock)
  );
}

/**
 * Calls `takeOver` once `holder` no longer holds `dataDir`, until it resolves true (then the watch ends
 * by itself). Checks never overlap; a change seen during one is looked at right after it.
 */
export function watchHolder(dataDir: string, holder: LockHolder, takeOver: () => Promise<boolean>): HolderWatch {
  let stopped = false;
  let busy = false;
  let again = false;
  let watcher: FSWatcher | undefined;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
    watcher?.close();
  };
  const check = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        if (stopped || (await stillHeld(dataDir, holder))) continue;
        if (!stopped && (await takeOver())) stop();
      } while (again && !stopped);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), CHECK_MS);
  timer.unref();
  try {
    watcher = watch(dataDir, (_event, name) => {
      if (name === null || name === LOCK_FILE) void check();
    });
    watcher.on('error', () => watcher?.close());
    watcher.unref();
  } catch {
    // No fs.watch here: the timer alone.
  }
  return { stop };
}
