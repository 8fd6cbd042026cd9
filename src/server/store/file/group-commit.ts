/**
 * Group commit for the file store's message files. Messages that arrive together go down together:
 * every write asked for while a batch is being made durable waits for it and joins the next batch, and
 * a batch pays one directory fsync per directory instead of one per message.
 *
 * Each file of a batch is created under its final name with O_EXCL (never over an existing one: a name
 * another writer holds is refused, EEXIST), written whole, fdatasync'd and closed. The batch's files are
 * synced all at once, so the file system commits them in one journal transaction rather than one after
 * another; then each directory that gained names is fsync'd once, and only then does any write of the
 * batch resolve. So a message is acknowledged only once its bytes and its name are on disk, and ten
 * messages cost one directory fsync and one round of file syncs instead of ten of each.
 *
 * No temp name and no link: four file-system calls a message (open, write, fdatasync, close) where a
 * temp name took six (and link and unlink are the dearest of them in a busy directory): measured
 * in-process, 3,000 files of 6 KB from 10 writers, ~110-150 µs of CPU a file against ~190-330. What a
 * crash cuts short is a file whose size is not what its header says: never acknowledged, and never
 * served (file-store-load.ts sets it aside as *.corrupt when the inbox is read, its id kept used).
 *
 * One batch is made durable at a time: what arrives meanwhile waits for it and goes down together. At low
 * load a batch holds one file and starts at once (next turn of the event loop): grouping never adds a
 * wait of its own.
 */
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir } from './durable-fs';

/** Files of one batch written at once; more wait for a slot (a batch can hold thousands of copies). */
const FILES_AT_ONCE = 64;

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

/** Writes every byte of `chunks` at the start of `fh` (writev, finishing a short write with write). */
async function writeAll(fh: FileHandle, chunks: readonly Uint8Array[]): Promise<void> {
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  const done = (await fh.writev(chunks as Uint8Array[])).bytesWritten;
  if (done >= total) return;
  const rest = Buffer.concat(chunks as Uint8Array[]).subarray(done);
  for (let at = 0; at < rest.length; ) {
    const { bytesWritten } = await fh.write(rest, at, rest.length - at, done + at);
    at += bytesWritten;
  }
}

/** Creates, writes and fdatasyncs one file under its final name; resolves once its data is on disk. */
async function stage(write: Queued): Promise<void> {
  const path = join(write.dir, write.name);
  const fh = await open(path, 'wx', 0o600);
  try {
    await writeAll(fh, write.chunks);
    await fh.datasync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    // Not written whole: it must not stay to be set aside later (its id is simply burned).
    await unlink(path).catch(() => undefined);
    throw err;
  }
  // The data is down: a close that fails changes nothing then.
  await fh.close().catch(() => undefined);
}

/** Runs `work` on every item, at most `limit` at once; one outcome per item, in order. */
async function settleLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<PromiseSettledResult<void>[]> {
  const out: PromiseSettledResult<void>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!).then(
        () => ({ status: 'fulfilled', value: undefined }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Makes one batch durable and settles each of its writes. */
async function commitBatch(batch: Queued[]): Promise<BatchReport> {
  const staged = await settleLimited(batch, FILES_AT_ONCE, stage);
  const dirs = new Map<string, Promise<unknown>>();
  batch.forEach((w, i) => {
    if (staged[i]!.status === 'fulfilled' && !dirs.has(w.dir)) dirs.set(w.dir, fsyncDir(w.dir).then(() => undefined, (err: unknown) => err ?? new Error('fsync failed')));
  });
  const dirErrors = new Map<string, unknown>();
  for (const [dir, done] of dirs) {
    const err = await done;
    if (err !== undefined) dirErrors.set(dir, err);
  }
  await Promise.all(
    batch.map(async (w, i) => {
      const result = staged[i]!;
      if (result.status === 'rejected') return w.reject(result.reason);
      const dirError = dirErrors.get(w.dir);
      if (dirError === undefined) return w.resolve();
      // Its name may not survive a crash: it is not acknowledged, so it must not be served either.
      await unlink(join(w.dir, w.name)).catch(() => undefined);
      w.reject(dirError);
    }),
  );
  return { files: batch.length, dirSyncs: dirs.size };
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
