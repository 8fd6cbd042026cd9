/**
 * The short lock of a pacing file (pacing-file.ts): `.<name>.lock` created exclusively (O_EXCL) beside
 * it, holding its owner's pid, the start time of that process (Linux: /proc/<pid>/stat, so a reused pid
 * is told apart), the host and a token naming this one taking. It is held for a read and a write of a
 * few bytes, never across an await: the caller must not await while holding it.
 *
 * Nothing a process that is gone leaves behind can hold the others up, whatever instant it was killed
 * at: a lock whose owner does not run (ESRCH) or runs as another process (another start time), one that
 * cannot be read as a lock (malformed, empty past a moment, a directory, a FIFO, a link) is removed and
 * taken. There is no guard file: a takeover removes the lock only if it still holds the text judged, and
 * the two steps are microseconds apart; two processes meeting one dead owner's lock at that instant may
 * both go, which costs at most one start spaced too close (pacing is not durable on purpose).
 *
 * Waiting is asynchronous (the app's event loop runs on) and bounded: past `maxWaitMs` on one taking of
 * the lock by a live process (stopped with Ctrl-Z, or on another host sharing the directory), or five
 * times that in all, the caller goes on without the lock and says so.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

/** How long a command waits on one taking of the lock by a live process before it goes on without pacing. */
export const PACING_LOCK_WAIT_MS = 2_000;
// The whole wait, however many takings come and go meanwhile, in PACING_LOCK_WAIT_MS.
const TOTAL_WAITS = 5;
// A lock still empty this long after it was made was left by a process killed between create and write.
const EMPTY_GRACE_MS = 1_000;
const MAX_LOCK_BYTES = 512;
const POLL_MS = 10;

let takings = 0;
// The lock texts of this process's takings not yet released.
const ours = new Set<string>();

/** A lock taken: its release. Or why it was not taken within the wait (a live process holds it). */
export type PacingLock = { release: () => void } | { heldBy: string };

/** Takes the lock at `lock`, waiting at most `maxWaitMs` on a live holder. Errors other than "held" are thrown. */
export async function takePacingLock(lock: string, maxWaitMs = PACING_LOCK_WAIT_MS): Promise<PacingLock> {
  const mine = `${process.pid} ${startTimeOf(process.pid) ?? '-'} ${hostname()} ${process.hrtime.bigint()}.${++takings}`;
  // The wait counts while one same taking holds the lock (others taking turns meanwhile are progress),
  // and the whole wait is bounded too.
  const deadline = Date.now() + maxWaitMs * TOTAL_WAITS;
  let holder: string | undefined;
  let holderSince = 0;
  // Takeovers and releases seen in a row without a wait: many mean a lock that cannot be removed.
  let quick = 0;
  for (;;) {
    if (create(lock, mine)) {
      ours.add(mine);
      return {
        release: () => {
          removeIf(lock, mine);
          ours.delete(mine);
        },
      };
    }
    const seen = inspect(lock);
    if (seen.state !== 'held') {
      if (seen.state === 'left' && !removeIf(lock, seen.text)) throw new Error(`cannot remove ${lock}`);
      if (++quick > 100) throw new Error(`${lock} keeps changing`);
      continue;
    }
    quick = 0;
    const at = Date.now();
    if (seen.text !== holder) {
      holder = seen.text;
      holderSince = at;
    }
    if (at - holderSince >= maxWaitMs || at >= deadline) return { heldBy: seen.owner };
    await sleep(POLL_MS + Math.random() * POLL_MS);
  }
}

function create(lock: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

type Seen = { state: 'gone' } | { state: 'left'; text: string | null } | { state: 'held'; owner: string; text: string };

/** What is at `lock`: nothing, something no live process holds ('left'), or a live holder's lock. */
function inspect(lock: string): Seen {
  let fd: number;
  try {
    fd = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'gone' };
    // A link (ELOOP) or anything else that cannot be opened as a file: not a lock anyone holds.
    return { state: 'left', text: null };
  }
  let text: string;
  let mtimeMs: number;
  try {
    const st = fstatSync(fd);
    // A directory or a FIFO in the lock's place: no process holds it, and it would never go away.
    if (!st.isFile()) return { state: 'left', text: null };
    mtimeMs = st.mtimeMs;
    const buf = Buffer.alloc(MAX_LOCK_BYTES);
    text = buf.subarray(0, readSync(fd, buf, 0, MAX_LOCK_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  // Empty for a moment: its maker is between create and write. The file's time may be a little ahead
  // of Date.now() (it is not rounded to the millisecond); further ahead is no moment.
  const age = Date.now() - mtimeMs;
  if (text === '' && Math.abs(age) < EMPTY_GRACE_MS) return { state: 'held', owner: 'a process starting', text };
  return ownerLive(text) ? { state: 'held', owner: ownerWords(text), text } : { state: 'left', text };
}

/** Whether the lock's text names a process that runs now (on another host: assumed to). */
function ownerLive(text: string): boolean {
  const [pidText, start, host, token] = text.split(' ');
  const pid = Number(pidText);
  if (!token || !Number.isSafeInteger(pid) || pid <= 0) return false;
  if (host !== hostname()) return true;
  // Ours is held while a taking of this process is: one left by a taking that threw is not waited on.
  if (pid === process.pid) return ours.has(text);
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTimeOf(pid);
  return start === '-' || now === undefined || now === start;
}

// Said on stderr and the status line: the pid is a number (ownerLive checked it), the host is cut to a host name's characters.
function ownerWords(text: string): string {
  const [pid, , host = ''] = text.split(' ');
  return host === hostname()
    ? `process ${pid}`
    : `process ${pid} on ${host.replace(/[^A-Za-z0-9.-]/g, '?').slice(0, 64)}`;
}

/** The start time of `pid` in clock ticks since boot (Linux), to tell a reused pid apart. */
function startTimeOf(pid: number): string | undefined {
  try {
    const fd = openSync(`/proc/${pid}/stat`, 'r');
    try {
      const buf = Buffer.alloc(1024);
      const stat = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
      // After the command name (in parentheses, which may hold spaces): field 3 on; the start time is field 22.
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Removes `lock` if it still holds `text` (null: whatever is there, not a file). False when it is still
 * there and could not be removed; never throws.
 */
function removeIf(lock: string, text: string | null): boolean {
  try {
    if (text === null) {
      const st = lstatSync(lock);
      if (st.isDirectory()) rmSync(lock, { recursive: true, force: true });
      else unlinkSync(lock);
      return true;
    }
    const fd = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
    let now: string;
    try {
      const buf = Buffer.alloc(MAX_LOCK_BYTES);
      now = buf.subarray(0, readSync(fd, buf, 0, MAX_LOCK_BYTES, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
    if (now === text) unlinkSync(lock);
    return true;
  } catch (error) {
    // Gone already (released, or taken over by another waiter): fine.
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Resolves after `ms` (not node:timers/promises, which the app would load before its first frame). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
