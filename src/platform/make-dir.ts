/**
 * Creating a directory and its missing parents without `mkdir(..., { recursive: true })`. Node's
 * recursive mkdir loops forever, at full CPU, where a parent exists but refuses new entries with ENOENT
 * (`/proc/xx`: mkdir says ENOENT, so it creates the parent, which says EEXIST, so it retries the child...).
 * Here every step makes progress: walk up to the nearest existing ancestor, check it is a directory, then
 * create each missing component once with a plain mkdir. Any failure is the answer, worded so a user can
 * act on it; the message keeps Node's "CODE: reason, detail" shape, with no path before the first comma
 * (callers that show only that part, like the service's health detail, never show a path).
 */
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** A directory that could not be made: `code` is the errno code, `path` the directory that failed. */
export class MakeDirError extends Error {
  override readonly name = 'MakeDirError';
  readonly syscall = 'mkdir';
  constructor(
    readonly code: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** Why a plain mkdir of a path whose parent is a directory failed, in words. */
const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EMLINK: 'too many entries in the parent directory',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many levels of symbolic links',
  // The parent exists (we just checked), so ENOENT means it will not hold new entries (/proc, /sys).
  ENOENT: 'the parent directory does not allow creating directories in it',
};

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function failure(code: string, path: string, reason: string, note = ''): MakeDirError {
  return new MakeDirError(code, path, `${code}: ${reason}, mkdir '${path}'${note}`);
}

function mkdirFailure(error: unknown, path: string): MakeDirError {
  const code = codeOf(error) ?? 'EIO';
  const reason =
    REASONS[code] ??
    (error instanceof Error ? (error.message.split(',')[0] ?? '').replace(/^[A-Z]+: /, '') : String(error));
  return failure(code, path, reason || 'cannot create the directory');
}

/** The refusal for an existing non-directory: the target itself (EEXIST) or one of its ancestors (ENOTDIR). */
function notADirectory(found: string, target: string): MakeDirError {
  return found === target
    ? failure('EEXIST', target, 'exists and is not a directory')
    : failure('ENOTDIR', target, 'not a directory', ` ('${found}' is not a directory)`);
}

/** Missing components of `dir`, outermost first, after checking that the nearest existing one is a directory. */
function plan(dir: string, look: (path: string) => Stats | 'missing'): string[] {
  const missing: string[] = [];
  for (let current = dir; ; ) {
    const found = look(current);
    if (found !== 'missing') {
      if (!found.isDirectory()) throw notADirectory(current, dir);
      return missing.reverse();
    }
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) throw failure('ENOENT', dir, 'no existing ancestor directory');
    current = parent;
  }
}

/** stat, with "not there" (ENOENT, or ENOTDIR: a file further up, found on the next step) as 'missing'. */
function lookSync(path: string): Stats | 'missing' {
  try {
    return statSync(path);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw mkdirFailure(error, path);
  }
}

/** After EEXIST: fine when a directory is there now (made by someone else meanwhile), else the refusal. */
function existing(found: Stats | 'missing', path: string, target: string): void {
  if (found === 'missing')
    throw failure(
      'EEXIST',
      target,
      'exists and is not a directory',
      ` ('${path}' is a broken link, or was removed meanwhile)`,
    );
  if (!found.isDirectory()) throw notADirectory(path, target);
}

/**
 * Creates `dir` and any missing parents, each with `mode` (default 0700); an existing directory is fine.
 * Resolves with the directories it created, outermost first (a caller can fsync their parents).
 * Rejects with a MakeDirError; never loops without progress.
 */
export async function makeDir(dir: string, mode = 0o700): Promise<string[]> {
  const target = resolve(dir);
  const statuses = new Map<string, Stats | 'missing'>();
  // The walk up is a handful of stats; done async one at a time, then planned on the results.
  for (let current = target; ; current = dirname(current)) {
    const found = await stat(current).catch((error: unknown) => {
      const code = codeOf(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing' as const;
      throw mkdirFailure(error, current);
    });
    statuses.set(current, found);
    if (found !== 'missing' || dirname(current) === current) break;
  }
  const missing = plan(target, (path) => statuses.get(path) ?? 'missing');
  for (const path of missing) {
    try {
      await mkdir(path, { mode });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw mkdirFailure(error, path);
      existing(await stat(path).catch(() => 'missing' as const), path, target);
    }
  }
  return missing;
}

/** makeDir, synchronously (for callers that are synchronous on purpose, like the private-file writer). */
export function makeDirSync(dir: string, mode = 0o700): string[] {
  const target = resolve(dir);
  const missing = plan(target, lookSync);
  for (const path of missing) {
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw mkdirFailure(error, path);
      let found: Stats | 'missing';
      try {
        found = statSync(path);
      } catch {
        found = 'missing';
      }
      existing(found, path, target);
    }
  }
  return missing;
}
