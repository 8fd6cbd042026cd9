/**
 * Group commit for the file store's message files. Messages that arrive together go down together:
 * every write asked for while a batch is being made durable waits for it and joins the next batch, and
 * a batch pays one directory fsync per directory instead of one per message.
 *
 * Each file of a batch is created under its final name with O_EXCL (never over an existing one: a name
 * another writer holds is refused, EEXIST) and written whole; then the files' fdatasyncs and one fsync
 * of each directory that gained names are asked for together, and only once all of them are done does
 * any write of the batch resolve. So a message is acknowledged only once its bytes and its name are on
 * disk; ten messages cost one directory fsync and one round of file syncs instead of ten of each, and
 * the file system can commit the names and the data in one journal transaction.
 *
 * No temp name and no link: four file-system calls a message (open, write, fdatasync, close) where a
 * temp name took six (and link and unlink are the dearest of them in a busy directory; the CPU a file
 * each way: docs/performance.md, "Issue 28"). Only the fdatasync goes through the thread pool for a message of usual size (WRITE_ON_LOOP_MAX). What a
 * crash cuts short is a file whose size is not what its header says: never acknowledged, and never
 * served (file-store-load.ts sets it aside as *.corrupt when the inbox is read, its id kept used).
 *
 * One batch is made durable at a time: what arrives meanwhile waits for it and goes down together. At low
 * load a batch holds one file and starts at once (next turn of the event loop): grouping never adds a
 * wait of its own.
 */
import { closeSync, fdatasync, openSync, unlinkSync, writevSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir } from './durable-fs';

/** Files of one batch written and synced at once, each open meanwhile (a batch can hold thousands of copies). */
const FILES_AT_ONCE = 64;

/**
 * A message file of at most this many bytes is created and written on the loop itself (open, writev:
 * a few KB cost the loop less than handing them to the pool); larger ones go through the thread pool.
 * Each thread-pool call costs more than the call itself (a hand-over, a wake-up, a promise: the figures
 * are in docs/performance.md, "A message file is written on the loop"). The fdatasync, which waits on
 * the disk, always goes through the pool.
 */
const WRITE_ON_LOOP_MAX = 64 * 1024;

/**
 * Bytes one slice writes on the loop at most: past them its files go through the pool, so a burst holds
 * the loop for a few writes into the page cache, never for FILES_AT_ONCE large ones.
 */
const LOOP_BYTES_PER_SLICE = 512 * 1024;

interface Queued {
  dir: string;
  name: string;
  chunks: readonly Uint8Array[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** What a batch did, for tests and the log: how many files, how many directory fsyncs. */
export interface BatchReport {
  files: number;
  dirSyncs: number;
}

/** A created, fully written file, not yet synced. */
interface Created {
  datasync(): Promise<void>;
  /** Never rejects: by then the data is down (or will never be), and a failed close changes nothing. */
  close(): Promise<void>;
}

const totalBytes = (chunks: readonly Uint8Array[]) => chunks.reduce((n, c) => n + c.byteLength, 0);

/** Writes every byte of `chunks` at the start of `fd` (writev, then what a short write left). */
function writeAllNow(fd: number, chunks: readonly Uint8Array[]): void {
  const total = totalBytes(chunks);
  let done = writevSync(fd, chunks as Uint8Array[]);
  if (done >= total) return;
  const all = Buffer.concat(chunks as Uint8Array[]);
  while (done < total) done += wrote(writevSync(fd, [all.subarray(done)], done));
}

/** `n`, or the error of a write that made no progress (a regular file never does that; never loop on it). */
function wrote(n: number): number {
  if (n > 0) return n;
  throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
}

/** Creates one small file under its final name and writes it whole, on the loop. */
function createNow(write: Queued): Created {
  const path = join(write.dir, write.name);
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeAllNow(fd, write.chunks);
  } catch (err) {
    closeQuietly(fd);
    // Not written whole: it must not stay to be set aside later (its id is simply burned).
    try {
      unlinkSync(path);
    } catch {}
    throw err;
  }
  return {
    datasync: () => new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve()))),
    close: async () => closeQuietly(fd),
  };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
}

/** Creates one large file under its final name and writes it whole, through the thread pool. */
async function createInPool(write: Queued): Promise<Created> {
  const path = join(write.dir, write.name);
  const fh = await open(path, 'wx', 0o600);
  try {
    const total = totalBytes(write.chunks);
    let done = (await fh.writev(write.chunks as Uint8Array[])).bytesWritten;
    const all = done < total ? Buffer.concat(write.chunks as Uint8Array[]) : undefined;
    while (all && done < total) done += wrote((await fh.write(all, done, total - done, done)).bytesWritten);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
  return { datasync: () => fh.datasync(), close: () => fh.close().catch(() => undefined) };
}

/** Creates one file under its final name and writes it whole (on the loop or not); resolves with it, not yet synced. */
async function create(write: Queued, onLoop: boolean): Promise<Created> {
  return onLoop ? createNow(write) : createInPool(write);
}

/** Which writes of a slice go on the loop: small ones, up to LOOP_BYTES_PER_SLICE in all. */
function onLoop(slice: readonly Queued[]): boolean[] {
  let budget = LOOP_BYTES_PER_SLICE;
  return slice.map((w) => {
    const n = totalBytes(w.chunks);
    if (n > WRITE_ON_LOOP_MAX || n > budget) return false;
    budget -= n;
    return true;
  });
}

/** undefined when `p` resolves, else what it rejected with. */
const failureOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (err: unknown) => err ?? new Error('fsync failed'),
  );

/**
 * Makes up to FILES_AT_ONCE writes durable and settles each; returns how many directories it fsync'd.
 * Once every file exists and is written, the files' fdatasyncs and the directories' fsyncs are asked
 * for at once (the directories first, as the thread pool takes work in order): nothing needs one before
 * the other, as a write is acknowledged only when both are done, and a file system that commits
 * metadata in one journal (ext4) then makes them durable in one commit where one after the other took
 * two. The handles stay open until then, hence the bound.
 */
async function commitSlice(slice: readonly Queued[]): Promise<number> {
  const loop = onLoop(slice);
  const created = await Promise.allSettled(slice.map((w, i) => create(w, loop[i]!)));
  const dirs = new Map<string, Promise<unknown>>();
  slice.forEach((w, i) => {
    if (created[i]!.status === 'fulfilled' && !dirs.has(w.dir)) dirs.set(w.dir, failureOf(fsyncDir(w.dir)));
  });
  const synced = created.map((c) => (c.status === 'fulfilled' ? failureOf(c.value.datasync()) : undefined));
  const dirErrors = new Map<string, unknown>();
  for (const [dir, done] of dirs) {
    const err = await done;
    if (err !== undefined) dirErrors.set(dir, err);
  }
  await Promise.all(
    slice.map(async (w, i) => {
      const c = created[i]!;
      if (c.status === 'rejected') return w.reject(c.reason);
      const error = (await synced[i]) ?? dirErrors.get(w.dir);
      await c.value.close();
      if (error === undefined) return w.resolve();
      // Its bytes or its name may not survive a crash: it is not acknowledged, so it must not be served either.
      await unlink(join(w.dir, w.name)).catch(() => undefined);
      w.reject(error);
    }),
  );
  return dirs.size;
}

/** Makes one batch durable, FILES_AT_ONCE files at a time, and settles each of its writes. */
async function commitBatch(batch: readonly Queued[]): Promise<BatchReport> {
  let dirSyncs = 0;
  for (let at = 0; at < batch.length; at += FILES_AT_ONCE)
    dirSyncs += await commitSlice(batch.slice(at, at + FILES_AT_ONCE));
  return { files: batch.length, dirSyncs };
}

/** The batching writer of one store. */
export class GroupCommit {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param onBatch called after each batch (tests count batches and directory fsyncs with it).
   * @param maxInFlight batches being made durable at once; writes asked for meanwhile wait and group.
   */
  constructor(
    private readonly onBatch: (report: BatchReport) => void = () => undefined,
    private readonly maxInFlight = 1,
  ) {}

  /**
   * Writes `chunks` as `dir/name` (mode 0600), never over an existing name (rejects with EEXIST), and
   * resolves once the file and its directory entry are durable, together with whatever else was asked
   * for meanwhile.
   */
  write(dir: string, name: string, chunks: readonly Uint8Array[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ dir, name, chunks, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a batch on the next turn of the loop (writes of the same burst join it), if one may start. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
      const batch = this.queue.splice(0);
      this.inFlight++;
      void commitBatch(batch)
        .catch((error: unknown) => {
          for (const w of batch) w.reject(error);
          return { files: batch.length, dirSyncs: 0 };
        })
        .then((report) => this.onBatch(report))
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    });
  }
}
