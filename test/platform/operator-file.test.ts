/**
 * readOperatorFile / readOperatorFileSync on real files of every kind an operator's path can lead to:
 * a regular file and a symlink to one are read; a FIFO, a device, a directory and a socket are refused at
 * once by their type; a file past the cap is refused (also a /proc file that says size 0), and the async
 * read gives up at its deadline when the libuv pool cannot even start it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OperatorFileError, readOperatorFile, readOperatorFileSync } from '../../src/platform/operator-file';
import { cleanupAfterEach } from '../harness/cleanup';

const cleanup = cleanupAfterEach();

/** What each reader makes of `path`: the text, or the refusal's code and reason. */
async function both(path: string, maxBytes: number): Promise<[string, string]> {
  const show = (error: unknown) =>
    error instanceof OperatorFileError ? `${error.code}: ${error.reason}` : `not ours: ${String(error)}`;
  const async = await readOperatorFile(path, { maxBytes, timeoutMs: 5000 }).then((b) => b.toString('utf8'), show);
  let sync: string;
  try {
    sync = readOperatorFileSync(path, { maxBytes }).toString('utf8');
  } catch (error) {
    sync = show(error);
  }
  return [async, sync];
}

describe('readOperatorFile', () => {
  it('reads a regular file and follows a symlink to one; refuses every other kind by its type, at once', async () => {
    const dir = await cleanup.tempDir('tempmail-opfile-');
    const file = join(dir, 'plain');
    writeFileSync(file, 'hello\n');
    symlinkSync(file, join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'dir'));
    symlinkSync('/dev/zero', join(dir, 'zero'));
    const socketPath = join(dir, 'sock');
    const server = cleanup.defer(createServer().listen(socketPath), (s) => new Promise((r) => s.close(r)));
    await new Promise((r) => server.once('listening', r));

    expect(await both(file, 6)).toEqual(['hello\n', 'hello\n']);
    expect(await both(join(dir, 'link'), 100)).toEqual(['hello\n', 'hello\n']);
    const refused = (kind: string) => Array(2).fill(`not-regular: not a regular file but ${kind}`);
    expect(await both(join(dir, 'fifo'), 100)).toEqual(refused('a FIFO'));
    expect(await both(join(dir, 'zero'), 100)).toEqual(refused('a character device'));
    expect(await both(join(dir, 'dir'), 100)).toEqual(refused('a directory'));
    // A socket cannot be opened at all: the system's refusal, by its code.
    expect(await both(socketPath, 100)).toEqual(['ENXIO: ENXIO', 'ENXIO: ENXIO']);
    expect(await both(join(dir, 'missing'), 100)).toEqual(['ENOENT: ENOENT', 'ENOENT: ENOENT']);
  });

  it('holds the cap exactly, also for a file whose size the system does not know (/proc)', async () => {
    const dir = await cleanup.tempDir('tempmail-opfile-');
    const file = join(dir, 'big');
    writeFileSync(file, Buffer.alloc(200_000, 0x61));
    expect((await both(file, 200_000)).map((t) => t.length)).toEqual([200_000, 200_000]);
    expect(await both(file, 199_999)).toEqual(Array(2).fill('too-large: larger than 199999 bytes'));
    // fstat says 0 bytes for /proc files: the cap holds while reading, not only by the size.
    const [async, sync] = await both('/proc/self/status', 1_000_000);
    expect(async).toMatch(/^Name:/);
    expect(sync).toMatch(/^Name:/);
    expect(await both('/proc/self/status', 10)).toEqual(Array(2).fill('too-large: larger than 10 bytes'));
  });

  it('gives up at its deadline when the pool cannot start the read, and reads again once it can', async () => {
    const dir = await cleanup.tempDir('tempmail-opfile-');
    const file = join(dir, 'plain');
    writeFileSync(file, 'hello\n');
    // Every libuv pool thread blocked in a plain open() of a FIFO with no writer yet (what a stuck file
    // system does to a read); ours waits behind them.
    const threads = Number(process.env.UV_THREADPOOL_SIZE || 4);
    const fifos = Array.from({ length: threads }, (_, i) => join(dir, `fifo-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const blocked = fifos.map((fifo) => readFile(fifo));
    const release = () => {
      // A writer that opens and closes at once lets each blocked open() return (and its read see EOF).
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    };
    let error: unknown;
    try {
      await readOperatorFile(file, { maxBytes: 100, timeoutMs: 300 }).catch((e: unknown) => (error = e));
    } finally {
      // Only now: had the blocked opens not started before our read, the writers above would fail (ENXIO).
      release();
    }
    expect(error).toBeInstanceOf(OperatorFileError);
    expect((error as OperatorFileError).message).toBe(`cannot read ${file} (not read within 300 ms)`);
    await Promise.all(blocked);
    expect((await readOperatorFile(file, { maxBytes: 100, timeoutMs: 5000 })).toString()).toBe('hello\n');
  });
});
