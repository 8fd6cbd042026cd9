/**
 * The file-system moves the file store is built on. A file is only ever made visible whole: written to a
 * temp name, fsync'd, renamed over its final name, and the directory fsync'd, so a crash at any moment
 * leaves either the old state or the new one (plus, at worst, a temp file that open() removes).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Temp files start with this; anything so named is a crash leftover. */
export const TEMP_PREFIX = '.tmp-';

/** Makes a directory's entries (creates, renames, unlinks) durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Creates a directory (mode 0700) and makes its entry in the parent durable. */
export async function mkdirDurable(dir: string, parent: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await fsyncDir(parent);
}

/**
 * Writes `chunks` as `dir/name` (mode 0600) atomically and durably. Rejects with the file-system error
 * (EROFS, ENOSPC, EACCES, ENOTDIR...) and leaves nothing behind when it can.
 */
export async function writeFileDurable(dir: string, name: string, chunks: readonly Uint8Array[]): Promise<void> {
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
    await rename(tmp, join(dir, name));
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dir);
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
