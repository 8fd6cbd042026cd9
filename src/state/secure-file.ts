/**
 * Private files (saved sessions hold tokens): written atomically with mode 0600 inside a 0700 directory,
 * and checked on the way back in. Synchronous on purpose: the files are a few KB, and a synchronous
 * read-modify-write cannot interleave with another one in the same process.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  chmodSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { makeDirSync } from '../platform/make-dir';

// node:crypto is loaded on the first write, not with the app (its cost before the first frame:
// docs/performance.md, "Figures the code relies on").
const load = createRequire(import.meta.url);
const randomBytes = (size: number): Buffer => (load('node:crypto') as typeof import('node:crypto')).randomBytes(size);

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/** Temp files are `.<name>.<random>.tmp` beside the target; readers never look at them. */
export const TEMP_SUFFIX = '.tmp';

/** A private file or directory that cannot be used safely (owned by someone else, not a regular file). */
export class SecureFileError extends Error {
  override readonly name = 'SecureFileError';
}

const myUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Creates `dir` (and parents) as 0700, or checks an existing one: tightened if open to others, refused if not ours. */
export function ensurePrivateDir(dir: string): void {
  // Not mkdirSync's recursive mode: it loops forever under a parent that refuses entries (/proc).
  makeDirSync(dir, DIR_MODE);
  checkPrivateDir(dir);
}

/**
 * Reads a private file as UTF-8; null when it does not exist. A file open to group/others is tightened
 * to 0600 first; a file owned by another user, or anything but a regular file (a symlink is not
 * followed), is refused with a SecureFileError.
 */
export function readPrivateFile(file: string): string | null {
  const dir = dirname(file);
  try {
    checkPrivateDir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink planted in our state dir must not make us read (or chmod) its target.
    // O_NONBLOCK: a FIFO in the file's place must not hold the open until a writer comes (it is refused below).
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new SecureFileError(`${file} is a symbolic link; refusing to read it`);
    throw error;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SecureFileError(`${file} is not a regular file; refusing to read it`);
    checkOwner(file, st.uid, 'file');
    if ((st.mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The first bytes of a small file of ours, as UTF-8: null when it is missing, is not a regular file (a
 * link is not followed, a FIFO is not waited on) or holds more than `maxBytes` (not ours as written).
 * Never throws: a file that cannot be read counts as none.
 */
export function readSmallFile(file: string, maxBytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(maxBytes + 1);
    const size = readSync(fd, buf, 0, buf.length, 0);
    return size > maxBytes ? null : buf.subarray(0, size).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Replaces `file` atomically (replaceFileAtomically) in a private directory, made or checked first. */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  ensurePrivateDir(dirname(file));
  replaceFileAtomically(file, data);
}

/**
 * Replaces `file` atomically: a temp file in the same directory (mode 0600) is written and fsync'd, then
 * renamed over the target, then the directory is fsync'd so the rename itself survives a crash.
 * A reader sees the old content or the new, never a mix; a crash leaves at most a stray temp file.
 * A symbolic link at `file` is replaced itself, never followed: rename swaps the directory entry.
 * The directory is used as it is (a user's download folder keeps its own mode). Not `durable`: no fsync
 * (a file whose loss in a crash costs nothing, as the pacing files), still whole and never a link followed.
 */
export function replaceFileAtomically(
  file: string,
  data: string | Uint8Array,
  { durable = true }: { durable?: boolean } = {},
): void {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  // 'wx': never reuse (or follow a link at) an existing path; the mode applies at creation.
  const fd = openSync(temp, 'wx', FILE_MODE);
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      // The umask may have narrowed the mode, never widened it; fchmod makes it exactly 0600.
      fchmodSync(fd, FILE_MODE);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed or never created: nothing to clean.
    }
    throw error;
  }
  if (durable) fsyncDir(dir);
}

/** True for the temp files writePrivateFile leaves behind after a crash. */
export function isTempFileName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_SUFFIX);
}

function checkPrivateDir(dir: string): void {
  const st = statSync(dir);
  if (!st.isDirectory()) throw new SecureFileError(`${dir} is not a directory`);
  checkOwner(dir, st.uid, 'directory');
  // Only the group/other bits matter: a 0755 state dir lets anyone list which files exist.
  if ((st.mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
}

function checkOwner(path: string, uid: number, what: string): void {
  const me = myUid();
  if (me === undefined || uid === me) return;
  throw new SecureFileError(
    `${path}: this ${what} belongs to another user (uid ${uid}); refusing to use it. ` +
      `Remove it or set TEMPMAIL_TUI_HOME / XDG_STATE_HOME to a directory of your own.`,
  );
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) and file systems cannot fsync a directory; the rename already happened.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
