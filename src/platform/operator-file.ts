/**
 * Reading a file whose path an operator names (the --config file, TLS certificate and key, IMAP password
 * files, the admin token file, the data dir's own files): only a regular file (after following a symlink), of at most
 * `maxBytes`, within `timeoutMs`.
 *
 * Why each rule: a plain readFile of /dev/zero (or a symlink to it) grows memory until the process dies;
 * a FIFO blocks open() in a libuv pool thread until someone writes, and a process with a pool thread
 * stuck in a system call cannot exit at all (exit joins the pool: process.exit hangs, every signal but
 * SIGKILL is lost). So the file is opened O_NONBLOCK (a FIFO opens at once, and is then refused by its
 * type), its type and size come from fstat on that same descriptor (no swap between a check and the
 * open), and the read stops one byte past the cap (a file that grew, or a /proc file that says size 0).
 */
import { closeSync, constants, type Dirent, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export interface OperatorFileLimits {
  /** Most bytes the file may hold. */
  maxBytes: number;
  /** Async only: give up (reject) after this long. The pool thread is not freed by it (nothing can). */
  timeoutMs?: number;
}

/** Why an operator's file was not read, in words for a log line or a start error (no file content in it). */
export class OperatorFileError extends Error {
  override readonly name = 'OperatorFileError';
  constructor(
    readonly path: string,
    /** ENOENT, EACCES, ... for a refusal of the system; not-regular, too-large or timeout for ours. */
    readonly code: string,
    /** "ENOENT", "not a regular file but a FIFO", "larger than 1048576 bytes", "not read within 5 s". */
    readonly reason: string,
  ) {
    super(`cannot read ${path} (${reason})`);
  }
}

// O_NONBLOCK: a FIFO or a device must not block the open; O_NOCTTY: a terminal must not become ours.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const CHUNK = 64 * 1024;

/** What a file-system entry is, in words ("a FIFO"), from fstat/lstat or a directory listing alike. */
export function kindOf(entry: Stats | Dirent): string {
  if (entry.isFile()) return 'a file';
  if (entry.isDirectory()) return 'a directory';
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isSocket()) return 'a socket';
  return 'not a file';
}

/** The refusal for what fstat says, or undefined when a regular file of at most `maxBytes`. */
function refusal(path: string, st: Stats, maxBytes: number): OperatorFileError | undefined {
  if (!st.isFile()) return new OperatorFileError(path, 'not-regular', `not a regular file but ${kindOf(st)}`);
  if (st.size > maxBytes) return tooLarge(path, maxBytes);
  return undefined;
}

const tooLarge = (path: string, maxBytes: number) =>
  new OperatorFileError(path, 'too-large', `larger than ${maxBytes} bytes`);

function systemError(path: string, error: unknown): OperatorFileError {
  if (error instanceof OperatorFileError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new OperatorFileError(path, code, code);
}

/** Reads at most maxBytes + 1 bytes of an open regular file; too-large past maxBytes. */
async function readCapped(path: string, fh: FileHandle, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buf.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(path, maxBytes);
  }
}

async function readChecked(path: string, maxBytes: number): Promise<Buffer> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, FLAGS);
    const bad = refusal(path, await fh.stat(), maxBytes);
    if (bad) throw bad;
    return await readCapped(path, fh, maxBytes);
  } catch (error) {
    throw systemError(path, error);
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * The bytes of `path`, or an OperatorFileError: missing or unreadable (its errno code), not a regular
 * file, over `maxBytes`, or not read within `timeoutMs` (a stuck file system, or a pool busy with other
 * work). Never blocks on a FIFO or device, never holds more than maxBytes + 64 KiB.
 */
export function readOperatorFile(path: string, limits: OperatorFileLimits): Promise<Buffer> {
  const reading = readChecked(path, limits.maxBytes);
  if (limits.timeoutMs === undefined) return reading;
  const ms = limits.timeoutMs;
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => {
      const seconds = ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
      reject(new OperatorFileError(path, 'timeout', `not read within ${seconds}`));
    }, ms);
    // The deadline alone must not keep the process up.
    timer.unref();
    reading.then(
      (bytes) => {
        clearTimeout(timer);
        resolve(bytes);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

/**
 * A secret an operator keeps in a file (an admin token, an IMAP password): the file's text, without the
 * one line end an editor leaves at its end. readOperatorFile's rules and errors.
 */
export async function readSecretFile(path: string, limits: OperatorFileLimits): Promise<string> {
  return (await readOperatorFile(path, limits)).toString('utf8').replace(/\r?\n$/, '');
}

/**
 * readOperatorFile for start-up code that is synchronous (the --config file): the same checks, no
 * deadline (nothing else runs meanwhile; a regular file's read does not wait on anyone).
 */
export function readOperatorFileSync(path: string, limits: Pick<OperatorFileLimits, 'maxBytes'>): Buffer {
  const { maxBytes } = limits;
  let fd: number | undefined;
  try {
    fd = openSync(path, FLAGS);
    const bad = refusal(path, fstatSync(fd), maxBytes);
    if (bad) throw bad;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const bytesRead = readSync(fd, buf, 0, buf.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(path, maxBytes);
    }
  } catch (error) {
    throw systemError(path, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
