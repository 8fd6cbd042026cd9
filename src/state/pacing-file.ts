/**
 * One provider's request pace shared by every process of this user: the app, a `wait` in another
 * terminal and a script's parallel `list`s. A small file per provider and host in the state directory
 * (`pacing/<provider>-<host>`) holds the time the next request may start; each start takes its turn
 * under the file's short lock (file-lock.ts) and moves it on by the spacing, and a 429's Retry-After
 * moves it to the end of the wait, for everyone. Not durable on purpose: a turn lost in a crash only
 * makes the next start a little early or late, so the file is written in place without fsync.
 * Where the file cannot be used (no state directory), the process paces itself alone.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createPacer, intervalOf, nextStart, type Pacer } from '../client/pacing/pacer';
import { withFileLock } from './file-lock';

/**
 * Starts are spaced twice as wide as the documented rate (mail.tm's 8 a second: one every 250 ms): a
 * provider counts requests as they arrive, and on a busy machine a process that has had its turn may be
 * held up for hundreds of milliseconds before its request leaves, so that requests started apart arrive
 * together. Half as wide again still let 9 arrive within a second with twelve processes starting at a
 * load of 10 on 2 cores.
 */
export const PACING_MARGIN = 2;
// A turn further ahead than this is a file from a clock that jumped back, or a hand edit: ignored.
const MAX_AHEAD_MS = 120_000;

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
 * `dir/pacing/<name>`, with `now` as the clock every process shares (the wall clock).
 */
export function createFilePacer(dir: string, name: string, perSecond: number, now: () => number = Date.now): Pacer {
  const folder = join(dir, 'pacing');
  const file = join(folder, name);
  const intervalMs = intervalOf(perSecond) * PACING_MARGIN;
  // Once the file fails, this process paces itself (and stops trying the file).
  let alone: Pacer | undefined;

  /**
   * Under the lock (withFileLock makes the folder private first): the next turn as stored, changed by
   * `change`, written back; what `change` returned.
   */
  function turn<T>(change: (next: number, at: number) => { next: number; result: T }): T {
    return withFileLock(folder, name, () => {
      const at = now();
      const stored = readNext(file);
      const changed = change(due(stored, at), at);
      if (changed.next !== stored) writeNext(file, changed.next);
      return changed.result;
    });
  }

  const local = (): Pacer => (alone ??= createPacer(perSecond > 0 ? 1000 / intervalMs : 0, now));

  return {
    async run(fn) {
      if (alone) return alone.run(fn);
      // No documented rate: only a 429's hold counts, read without the lock (and no file is made).
      if (intervalMs === 0) {
        const at = now();
        const wait = due(readNext(file), at) - at;
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return fn();
      }
      let start: number;
      try {
        start = turn((next, at) => {
          const t = nextStart(at, next, intervalMs);
          return { next: t.next, result: t.start };
        });
      } catch {
        return local().run(fn);
      }
      const wait = start - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return fn();
    },
    holdUntil(atMs) {
      if (alone) return alone.holdUntil(atMs);
      try {
        turn((next) => ({ next: Math.max(next, atMs), result: undefined }));
      } catch {
        local().holdUntil(atMs);
      }
    },
  };
}

/** The stored next turn as it counts at `at`: one further ahead than MAX_AHEAD_MS is ignored (now). */
function due(stored: number, at: number): number {
  return stored > at + MAX_AHEAD_MS ? at : stored;
}

function readNext(file: string): number {
  try {
    const value = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}

function writeNext(file: string, next: number): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, String(Math.round(next)));
  } finally {
    closeSync(fd);
  }
}
