/**
 * One provider's request pace shared by every process of this user: the app, a `wait` in another
 * terminal and a script's parallel `list`s. A small file per provider and host in the state directory
 * (`pacing/<provider>-<host>`) holds the time the next request may start and the time it was written;
 * each start takes its turn under the file's short lock (pacing-lock.ts) and moves it on by the spacing,
 * and a 429's Retry-After moves it to the end of the wait, for everyone. Not durable on purpose: a turn
 * lost in a crash only makes the next start a little early or late, so the file is replaced without fsync.
 *
 * The file is read and written as the saved sessions are: a regular file only (a FIFO, a link or a
 * directory in its place is not read, and is replaced by the next write, its target untouched), a few
 * bytes read at most, replaced atomically. A turn further ahead than the rate can need, or written by a
 * clock ahead of ours, counts as one interval from now. A wait of a second or more is said (`onWait`);
 * so is going on without pacing when a live process holds the lock past its bound (`onSkip`).
 * Where the file cannot be used (no state directory), the process paces itself alone.
 */
import { join } from 'node:path';
import { createPacer, intervalOf, nextStart, pause, type Pacer } from './pacer';
import { RATE_LIMIT_WAIT } from './rate-limit-wait';
import { removeStaleTemps } from '../../state/file-lock';
import { takePacingLock } from './pacing-lock';
import { ensurePrivateDir, readSmallFile, replaceFileAtomically } from '../../state/secure-file';

/**
 * Starts are spaced twice as wide as the documented rate (mail.tm's 8 a second: one every 250 ms): a
 * provider counts requests as they arrive, and on a busy machine a process that has had its turn may be
 * held up for hundreds of milliseconds before its request leaves, so that requests started apart arrive
 * together. Half as wide again still let 9 arrive within a second with twelve processes starting at a
 * load of 10 on 2 cores.
 */
export const PACING_MARGIN = 2;
/** Turns the user's processes may have queued ahead of now (each takes one interval). */
const MAX_QUEUED_TURNS = 40;
// A file written up to this far "ahead" is clocks of the same machine read a moment apart, not a step back.
const CLOCK_SLACK_MS = 1_000;
// "<next> <written at>" is some 30 bytes: anything longer is not a pacing file (and is not read whole).
const MAX_FILE_BYTES = 64;
// A wait this long or longer is said; a usual turn (a quarter of a second) is not.
const SAID_WAIT_MS = 1_000;

export interface FilePacerOptions {
  /** The clock every process shares (the wall clock). */
  now?: () => number;
  /** Told before a wait of a second or more: its seconds. */
  onWait?: (seconds: number) => void;
  /** Told when a request goes without pacing: who holds the lock past its bound, and the lock's path. */
  onSkip?: (heldBy: string, lock: string) => void;
  /** The bound of a wait on a live holder of the lock (pacing-lock.ts). */
  lockWaitMs?: number;
}

/** The file name for a provider at a base URL: "mailtm-api.mail.tm", "tempmail-127.0.0.1_8025". */
export function pacingName(provider: string, baseUrl: string): string {
  let host = 'unknown';
  try {
    host = new URL(baseUrl).host.toLowerCase();
  } catch {
    // A key, not a URL: one file for all of them.
  }
  return `${provider}-${host}`.replace(/[^a-z0-9.-]/gi, '_').slice(0, 200);
}

/**
 * A pacer for `perSecond` starts a second (0: no spacing, only the holds of a 429) shared through
 * `dir/pacing/<name>`.
 */
export function createFilePacer(dir: string, name: string, perSecond: number, options: FilePacerOptions = {}): Pacer {
  const { now = Date.now } = options;
  const folder = join(dir, 'pacing');
  const file = join(folder, name);
  const lock = join(folder, `.${name}.lock`);
  const intervalMs = intervalOf(perSecond) * PACING_MARGIN;
  const aheadMs = RATE_LIMIT_WAIT.perWaitMs + MAX_QUEUED_TURNS * intervalMs;
  // Once the file fails, this process paces itself (and stops trying the file).
  let alone: Pacer | undefined;
  let prepared = false;
  // This process's own last hold: kept here too, so a start right after it waits even if its write lost the race.
  let held = 0;
  const local = (): Pacer => (alone ??= createPacer(perSecond > 0 ? 1000 / intervalMs : 0, now));
  const due = (at: number): number =>
    Math.max(held, dueOf(readSmallFile(file, MAX_FILE_BYTES), at, aheadMs, intervalMs));

  /** Under the lock: the next turn as it counts, changed by `change` and written back; undefined if skipped. */
  async function turn<T>(
    change: (next: number, at: number) => { next: number; result: T },
  ): Promise<{ result: T } | undefined> {
    if (!prepared) {
      ensurePrivateDir(folder);
      removeStaleTemps(folder, name);
      prepared = true;
    }
    const taken = await takePacingLock(lock, options.lockWaitMs);
    if ('heldBy' in taken) {
      options.onSkip?.(taken.heldBy, lock);
      return undefined;
    }
    try {
      const at = now();
      const changed = change(due(at), at);
      replaceFileAtomically(file, `${Math.round(changed.next)} ${Math.round(at)}\n`, { durable: false });
      return { result: changed.result };
    } finally {
      taken.release();
    }
  }

  async function waitUntil(start: number, signal?: AbortSignal): Promise<void> {
    const wait = start - now();
    if (wait <= 0) return;
    if (wait >= SAID_WAIT_MS) options.onWait?.(Math.ceil(wait / 1000));
    await pause(wait, signal);
  }

  return {
    async run(fn, signal) {
      if (alone) return alone.run(fn, signal);
      // No documented rate: only a 429's hold counts, read without the lock (and no file is made).
      if (intervalMs === 0) {
        await waitUntil(due(now()), signal);
        return fn();
      }
      let taken: { result: number } | undefined;
      try {
        taken = await turn((next, at) => {
          const t = nextStart(at, next, intervalMs);
          return { next: t.next, result: t.start };
        });
      } catch {
        return local().run(fn, signal);
      }
      if (taken) await waitUntil(taken.result, signal);
      return fn();
    },
    holdUntil(atMs) {
      if (alone) return alone.holdUntil(atMs);
      held = Math.max(held, atMs);
      turn((next) => ({ next: Math.max(next, atMs), result: undefined })).catch(() => local().holdUntil(atMs));
    },
  };
}

/**
 * The next turn as it counts at `at`, from the file's text ("<next> <written at>"; an older file holds
 * only the turn): 0 for none or unreadable text; one interval on when it is further ahead than `aheadMs`
 * (a hold of a 429 and the turns queued after it) or was written by a clock ahead of ours.
 */
export function dueOf(text: string | null, at: number, aheadMs: number, intervalMs: number): number {
  if (text === null) return 0;
  const [nextText, writtenText] = text.trim().split(/\s+/);
  const next = Number(nextText);
  const written = writtenText === undefined ? 0 : Number(writtenText);
  if (!Number.isFinite(next) || next <= 0 || !Number.isFinite(written)) return 0;
  if (next > at + aheadMs || written > at + CLOCK_SLACK_MS) return at + intervalMs;
  return next;
}
