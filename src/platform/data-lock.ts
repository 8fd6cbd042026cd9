/**
 * One service per data dir. Each service keeps its own in-memory index of the dir, so two of them on one
 * dir (`serve` and the app's in-process service both default to the XDG data dir) drift apart: a prefix
 * handed out by one can be handed out by the other. `service.lock` in the data dir names the service
 * that owns it: {pid, startedAt, bootId, startTicks}, then {httpUrl, smtpHost, smtpPort} once both
 * listeners are up, so a second comer can say who is running, or (the app's local mode) use that service
 * instead.
 *
 * A pid alone does not name a process for long: after a kill -9 the kernel hands the number out again,
 * and a lock naming it would look held by whatever got it (a shell, a browser tab) for ever. So the
 * holder is the pid plus the boot it ran in (/proc/sys/kernel/random/boot_id) and the time the kernel
 * started it (/proc/<pid>/stat field 22, clock ticks since boot): a live pid with another start time, or
 * a lock from another boot, is stale. Node has no flock() (a lock the kernel drops on death); this asks
 * the kernel the same question. Where there is no /proc (macOS), or for a lock written before these
 * fields, the pid alone decides, as before.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeDir } from './make-dir';
import { readOperatorFile } from './operator-file';

export const LOCK_FILE = 'service.lock';
// A takeover guard older than this was left by a process that died in the middle of a takeover.
const GUARD_STALE_MS = 10_000;
// How long acquire keeps trying while another process is taking a stale lock over.
const ACQUIRE_WAIT_MS = 3_000;
// A lock holds a pid, two times and two addresses: a few hundred bytes.
const LOCK_MAX_BYTES = 64 * 1024;

/** What the lock file says about the service that holds it. */
export interface LockHolder {
  pid: number;
  /** ISO time the lock was taken. */
  startedAt: string;
  /** The boot the holder ran in (Linux boot_id); absent without /proc. */
  bootId?: string;
  /** When the kernel started the holder, in clock ticks since boot (/proc/<pid>/stat); absent without /proc. */
  startTicks?: string;
  /** Set once both listeners are up. */
  httpUrl?: string;
  smtpHost?: string;
  smtpPort?: number;
}

/** The data dir is locked by a live service; `holder` says which (its URL once it listens). */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  readonly code = 'EDATADIRINUSE';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the data dir ${dataDir} is in use by a tempmail-tui service (pid ${holder.pid}, ${holder.httpUrl ?? 'still starting'}); ` +
        'stop it or pass --data-dir',
    );
  }
}

/** A held lock. */
export interface DataDirLock {
  readonly file: string;
  /** Records where the service listens (replaces the file atomically). */
  listening(where: { httpUrl: string; smtpHost: string; smtpPort: number }): Promise<void>;
  /** Removes the lock if it is still ours. Idempotent. */
  release(): Promise<void>;
}

// Locks this process holds: a lock naming our own pid that is not in here was left by an earlier
// process that had the same pid (a container restarted on a kept volume often gets the same pid back).
const heldHere = new Set<string>();

/** Parses a lock file; undefined for anything that is not a lock we wrote (taken over as stale). */
export function parseLock(text: string): LockHolder | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const o = data as Partial<LockHolder> | null;
  if (!o || typeof o !== 'object' || !Number.isSafeInteger(o.pid) || (o.pid as number) <= 0) return undefined;
  return {
    pid: o.pid as number,
    startedAt: typeof o.startedAt === 'string' ? o.startedAt : '',
    ...(typeof o.bootId === 'string' ? { bootId: o.bootId } : {}),
    ...(typeof o.startTicks === 'string' ? { startTicks: o.startTicks } : {}),
    ...(typeof o.httpUrl === 'string' ? { httpUrl: o.httpUrl } : {}),
    ...(typeof o.smtpHost === 'string' ? { smtpHost: o.smtpHost } : {}),
    ...(Number.isSafeInteger(o.smtpPort) ? { smtpPort: o.smtpPort as number } : {}),
  };
}

/**
 * The lock file's text; undefined when there is none. Other read errors (EACCES, a FIFO or a directory
 * in its place, a file past the cap) are thrown: a FIFO read plainly would hang the start for good.
 */
async function readLockText(file: string): Promise<string | undefined> {
  try {
    return (await readOperatorFile(file, { maxBytes: LOCK_MAX_BYTES })).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads the lock of `dataDir`: its holder, or undefined when there is no lock or it cannot be parsed. */
export async function readDataDirLock(dataDir: string): Promise<LockHolder | undefined> {
  const text = await readLockText(join(dataDir, LOCK_FILE));
  return text === undefined ? undefined : parseLock(text);
}

/** This boot's id; undefined without /proc. Read once: it does not change while we run. */
let ourBoot: string | null | undefined;
function currentBootId(): string | undefined {
  if (ourBoot === undefined) {
    try {
      ourBoot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      ourBoot = null;
    }
  }
  return ourBoot ?? undefined;
}

/**
 * When the kernel started `pid` (clock ticks since boot); undefined when /proc cannot say (no /proc, the
 * process is gone, or hidden from us by hidepid). The name in field 2 may hold spaces and parentheses,
 * so the fields are counted from the last ")".
 */
export function processStartTicks(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After ") " come field 3 (state) onwards: field 22 is the 20th of them.
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

/** What this process writes into its lock to be told apart from a later process with its pid. */
function ourIdentity(): Pick<LockHolder, 'bootId' | 'startTicks'> {
  const bootId = currentBootId();
  const startTicks = processStartTicks(process.pid);
  return { ...(bootId ? { bootId } : {}), ...(startTicks ? { startTicks } : {}) };
}

/**
 * True while the process the lock names runs. ESRCH alone means gone (EPERM is a live process of another
 * user); a live pid is still not the holder when the lock says another boot or another start time.
 */
function alive(holder: LockHolder, file: string): boolean {
  if (holder.pid === process.pid) return heldHere.has(file);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const boot = currentBootId();
  // Every process of an earlier boot is gone, whatever now has its pid.
  if (holder.bootId !== undefined && boot !== undefined && holder.bootId !== boot) return false;
  if (holder.startTicks !== undefined) {
    const ticks = processStartTicks(holder.pid);
    // Unknown (hidden by hidepid, say): the live pid has the benefit of the doubt.
    if (ticks !== undefined && ticks !== holder.startTicks) return false;
  }
  return true;
}

/** True while the process that `holder` names is running (the local mode asks before using it). */
export function holderAlive(dataDir: string, holder: LockHolder): boolean {
  return alive(holder, resolve(dataDir, LOCK_FILE));
}

async function tempWrite(file: string, text: string): Promise<string> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, text, { flag: 'wx', mode: 0o600 });
  return temp;
}

/**
 * Creates `file` with `text` only if it does not exist. The content is written to a temp file (O_EXCL,
 * 0600) and link()ed into place, which fails on an existing name like O_EXCL does, and no reader ever
 * sees a lock file without its pid in it.
 */
async function createExclusive(file: string, text: string): Promise<boolean> {
  const temp = await tempWrite(file, text);
  try {
    await link(temp, file);
    // At once, before any other await: a second start in this process must see the lock as live.
    heldHere.add(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Removes a stale lock, but only if it still holds `staleText`: two processes that both found it stale
 * take turns through an O_EXCL guard file, so the second cannot delete the fresh lock of the first.
 * False when another process holds the guard (try again shortly).
 */
async function removeStale(file: string, staleText: string): Promise<boolean> {
  const guard = `${file}.takeover`;
  try {
    await writeFile(guard, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > GUARD_STALE_MS) await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    if ((await readLockText(file)) === staleText) await unlink(file).catch(() => undefined);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/**
 * Takes the lock of `dataDir` (created, 0700, if missing). A lock whose holder is gone (its pid exits no
 * more, or now belongs to a process of another start time or boot), or that cannot be parsed, is stale
 * and taken over; a live one rejects with DataDirInUseError.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  // makeDir, not a recursive mkdir, which spins forever under a parent like /proc that refuses entries.
  await makeDir(dataDir, 0o700);
  const file = resolve(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, startedAt: new Date().toISOString(), ...ourIdentity() };
  let written = JSON.stringify(mine);
  const deadline = Date.now() + ACQUIRE_WAIT_MS;
  for (;;) {
    if (await createExclusive(file, written)) break;
    const text = await readLockText(file);
    if (text === undefined) continue; // released between our attempt and the read
    const holder = parseLock(text);
    if (holder && alive(holder, file)) throw new DataDirInUseError(dataDir, holder);
    if (await removeStale(file, text)) continue;
    if (Date.now() > deadline)
      throw new Error(`could not lock the data dir ${dataDir}: another process keeps taking ${LOCK_FILE} over`);
    await new Promise((r) => setTimeout(r, 25));
  }

  let released = false;
  return {
    file,
    async listening(where) {
      if (released) return;
      const next = JSON.stringify({ ...mine, ...where });
      // Replaced by rename, so a reader sees the old content or the new, never half of it.
      const temp = await tempWrite(file, next);
      await rename(temp, file).catch(async (error: unknown) => {
        await unlink(temp).catch(() => undefined);
        throw error;
      });
      // Only now: had the write failed (a full disk), release() must still know the old text as ours.
      written = next;
    },
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      // Only our own lock: never one a later process wrote after deciding ours was stale.
      const text = await readLockText(file).catch(() => undefined);
      if (text === written) await unlink(file).catch(() => undefined);
    },
  };
}
