/**
 * The file-system moves the file store is built on. A file is only ever made visible whole: written to a
 * temp name, fsync'd, renamed over its final name, and the directory fsync'd, so a crash at any moment
 * leaves either the old state or the new one (plus, at worst, a temp file that open() removes).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsync, openSync } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDir } from '../../../platform/make-dir';

/** Temp files start with this; anything so named is a crash leftover. */
export const TEMP_PREFIX = '.tmp-';

/**
 * Makes a directory's entries (creates, renames, unlinks) durable. Opening and closing a directory are
 * quick and done on the loop; the fsync, which waits on the disk, goes through the thread pool.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fd = openSync(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates a directory (mode 0700, with any missing parents) and makes its entry in the parent durable.
 * makeDir, not a recursive mkdir: that one spins forever under a parent like /proc that refuses entries.
 */
export async function mkdirDurable(dir: string, parent: string): Promise<void> {
  const created = await makeDir(dir, 0o700);
  // Each new parent's entry lives in its own parent; `parent` is synced as before (cheap when unchanged).
  for (const made of created.slice(0, -1)) await fsyncDir(dirname(made));
  await fsyncDir(parent);
}

/** File systems that cannot make a hard link say so with one of these; publishing falls back to rename. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

export interface WriteOptions {
  /**
   * False: never replace an existing `dir/name`; reject with code EEXIST instead. The file is published
   * with link() (which refuses an existing name) rather than rename() (which silently replaces it), so a
   * second process writing into the same data dir can never overwrite a message this one acknowledged.
   */
  replace?: boolean;
}

/**
 * Writes `chunks` as `dir/name` (mode 0600) atomically and durably. Rejects with the file-system error
 * (EROFS, ENOSPC, EACCES, ENOTDIR...) and leaves nothing behind when it can.
 */
export async function writeFileDurable(
  dir: string,
  name: string,
  chunks: readonly Uint8Array[],
  options: WriteOptions = {},
): Promise<void> {
  const tmp = join(dir, `${TEMP_PREFIX}${name}-${randomBytes(6).toString('hex')}`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    // FileHandle.writeFile appends at the current position and loops until all bytes are written.
    for (const chunk of chunks) await fh.writeFile(chunk);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    await publish(tmp, join(dir, name), options.replace ?? true);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dir);
}

/** Gives the complete temp file its final name: rename, or link + unlink when it must not replace. */
async function publish(tmp: string, target: string, replace: boolean): Promise<void> {
  if (replace) return rename(tmp, target);
  try {
    await link(tmp, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined || !NO_LINKS.has(code)) throw err;
    // No hard links here: look, then rename. Only a writer racing between the two can still clobber.
    const taken = await open(target, 'r').then(
      (fh) => fh.close().then(() => true),
      () => false,
    );
    if (taken) throw Object.assign(new Error(`EEXIST: file already exists, ${target}`), { code: 'EEXIST' });
    return rename(tmp, target);
  }
  // A crash before this unlink leaves a temp file, which open() removes; the message is whole either way.
  await unlink(tmp);
}

/** Unlinks `dir/name` durably; false when it was not there. */
export async function unlinkDurable(dir: string, name: string): Promise<boolean> {
  try {
    await unlink(join(dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  await fsyncDir(dir);
  return true;
}

/**
 * Unlinks every one of `names` in `dir` at once, then makes it durable with one fsync of `dir`. One
 * outcome per name (a name already gone counts as done); the fsync's failure rejects the whole.
 */
export async function unlinkAllDurable(dir: string, names: readonly string[]): Promise<PromiseSettledResult<void>[]> {
  const outcomes = await Promise.allSettled(
    names.map((name) =>
      unlink(join(dir, name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      }),
    ),
  );
  await fsyncDir(dir);
  return outcomes;
}

/** Reads exactly `length` bytes at `position`; rejects on a short read (a file changed under us). */
export async function readExactly(path: string, position: number, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await fh.read(buf, done, length - done, position + done);
      if (bytesRead === 0) throw Object.assign(new Error(`short read in ${path}`), { code: 'ESHORTREAD' });
      done += bytesRead;
    }
    return buf;
  } finally {
    await fh.close();
  }
}
