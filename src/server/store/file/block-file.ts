/**
 * The file store's blocks (Store.listBlocks/putBlock/deleteBlock): one small JSON file in the data dir,
 * `blocks.json`, held in memory and rewritten whole, durably (temp file, fsync, rename), one write after
 * another. A change is in memory only once its file is on disk: a failed write (a full disk) leaves the
 * blocks as they were, and the caller hears why. A file that does not check out is set aside as
 * `*.corrupt`, named in the log, and the service starts with no blocks.
 */
import { join } from 'node:path';
import { writeFileDurable } from './durable-fs';
import { readStateFile } from './state-file';
import type { Block, BlockKind } from '../store';
import { BLOCK_KINDS } from '../store-admin';

const NAME = 'blocks.json';
const KINDS: readonly string[] = BLOCK_KINDS;
// A block is ~60 bytes as JSON: room for a million, and a bound on what a start reads.
const MAX_BYTES = 64 * 1024 * 1024;

function isBlock(v: unknown): v is Block {
  const b = v as Record<string, unknown> | null;
  return (
    !!b &&
    typeof b.kind === 'string' &&
    KINDS.includes(b.kind) &&
    typeof b.value === 'string' &&
    Number.isSafeInteger(b.createdAt)
  );
}

const keyOf = (kind: string, value: string) => `${kind} ${value}`;

/** The blocks of one data dir. */
export class BlockFile {
  private blocks = new Map<string, Block>();
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Reads the file (none yet is fine). */
  async load(): Promise<void> {
    const list = await readStateFile(join(this.dataDir, NAME), {
      maxBytes: MAX_BYTES,
      shape: (json) => {
        const blocks = (json as { blocks?: unknown } | null)?.blocks;
        return Array.isArray(blocks) && blocks.every(isBlock) ? blocks : undefined;
      },
      setAside: 'not a block list; no sender or client is blocked until blocks are added again',
      log: this.log,
    });
    if (!list) return;
    for (const b of list)
      this.blocks.set(keyOf(b.kind, b.value), { kind: b.kind, value: b.value, createdAt: b.createdAt });
  }

  list(): Block[] {
    return [...this.blocks.values()].map((b) => ({ ...b })).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Adds a block; false (nothing written) when it is there already. */
  put(block: Block): Promise<boolean> {
    return this.change((next) => {
      const key = keyOf(block.kind, block.value);
      if (next.has(key)) return false;
      next.set(key, { kind: block.kind, value: block.value, createdAt: block.createdAt });
      return true;
    });
  }

  /** Removes a block; false (nothing written) when there was none. */
  delete(kind: BlockKind, value: string): Promise<boolean> {
    return this.change((next) => next.delete(keyOf(kind, value)));
  }

  /** Applies `edit` to a copy of the blocks, writes the copy when it changed, then keeps it. */
  private change(edit: (next: Map<string, Block>) => boolean): Promise<boolean> {
    const run = this.writing
      .catch(() => undefined)
      .then(async () => {
        const next = new Map(this.blocks);
        if (!edit(next)) return false;
        const body = JSON.stringify({ blocks: [...next.values()] });
        await writeFileDurable(this.dataDir, NAME, [Buffer.from(body, 'utf8')]);
        this.blocks = next;
        return true;
      });
    this.writing = run;
    return run;
  }
}
