/**
 * Group commit in the file store (src/server/store/file/group-commit.ts): messages asked for together go down
 * in one batch, with one fsync per directory; a write that fails costs that write only; and nothing of a
 * batch resolves before the whole batch is durable. The fsync order itself, and kill -9 under grouped
 * load, are proven on the built serve by ack-after-fsync.test.ts and durability.test.ts.
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../../src/server/store/file/file-store';
import type { BatchReport } from '../../../../src/server/store/file/group-commit';
import { cleanupAfterEach } from '../../../harness/cleanup';
import { newMessage, sessionRecord } from '../store-suite';

const cleanup = cleanupAfterEach();

async function opened() {
  const dataDir = join(await cleanup.tempDir('tempmail-group-'), 'data');
  const batches: BatchReport[] = [];
  const store = new FileStore(dataDir, { onBatch: (b) => batches.push(b) });
  await store.open();
  cleanup.defer(store, (s) => s.close());
  return { store, batches, dataDir };
}

describe('FileStore group commit', () => {
  it('stores deliveries asked for together in one batch: one fsync per inbox directory', async () => {
    const { store, batches, dataDir } = await opened();
    const a = sessionRecord();
    const b = sessionRecord();
    await store.putSession(a);
    await store.putSession(b);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.deliver([a.id, b.id], newMessage({ subject: `m${i}` }), 100)),
    );
    expect(batches).toEqual([{ files: 20, dirSyncs: 2 }]);
    for (const r of results) expect([...r.stored.keys()].sort()).toEqual([a.id, b.id].sort());
    const ids = results.map((r) => r.stored.get(a.id)!.id).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect((await readdir(join(dataDir, 'messages', a.id))).sort()).toEqual(ids.map((id) => `${id}.msg`).sort());
    expect((await store.listMessages(b.id)).map((m) => m.subject).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('groups what arrives while a batch is on its way into the next one', async () => {
    const { store, batches } = await opened();
    const s = sessionRecord();
    await store.putSession(s);
    const first = store.addMessage(s.id, newMessage({ subject: 'first' }));
    // The first batch starts on the next turn of the loop, and takes several turns (its fdatasync and the
    // directory's fsync are round trips to the thread pool); these arrive while it is being made durable.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    const later = Array.from({ length: 6 }, (_, i) => store.addMessage(s.id, newMessage({ subject: `later ${i}` })));
    await Promise.all([first, ...later]);
    expect(batches).toEqual([
      { files: 1, dirSyncs: 1 },
      { files: 6, dirSyncs: 1 },
    ]);
    expect(await store.countMessages(s.id)).toBe(7);
  });

  it('writes small files on the loop (up to a budget) and large ones through the thread pool, each whole, in one batch', async () => {
    const { store, batches } = await opened();
    const s = sessionRecord();
    await store.putSession(s);
    const large = Buffer.alloc(3 * 1024 * 1024, 0x61);
    // Twelve of 60 KB: past the slice's budget for the loop, the rest go through the pool.
    const middling = Array.from({ length: 12 }, (_, i) => Buffer.alloc(60 * 1024, 0x30 + i));
    const [small, big, ...others] = await Promise.all([
      store.addMessage(s.id, newMessage({ subject: 'small' })),
      store.addMessage(s.id, newMessage({ subject: 'large', raw: large })),
      ...middling.map((raw) => store.addMessage(s.id, newMessage({ raw, attachments: [] }))),
    ]);
    expect(batches).toEqual([{ files: 14, dirSyncs: 1 }]);
    expect((await store.rawMessage(s.id, big.id))!.equals(large)).toBe(true);
    expect((await store.rawMessage(s.id, small.id))!.equals(newMessage().raw)).toBe(true);
    for (const [i, m] of others.entries())
      expect((await store.rawMessage(s.id, m.id))!.equals(middling[i]!)).toBe(true);
  });

  it('fails only the write that fails: the rest of its batch is stored and acknowledged', async () => {
    const { store, batches, dataDir } = await opened();
    const fine = sessionRecord();
    const broken = sessionRecord();
    await store.putSession(fine);
    await store.putSession(broken);
    // A real ENOTDIR from the kernel for every write into the broken inbox.
    const dir = join(dataDir, 'messages', broken.id);
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a directory');
    const outcomes = await Promise.allSettled([
      store.addMessage(fine.id, newMessage({ subject: 'kept 1' })),
      store.addMessage(broken.id, newMessage({ subject: 'lost' })),
      store.deliver([fine.id], newMessage({ subject: 'kept 2' }), 100),
      store.deliver([fine.id, broken.id], newMessage({ subject: 'both' }), 100),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENOTDIR' });
    expect(batches[0]).toEqual({ files: 5, dirSyncs: 1 });
    // The copy of "both" that went into the fine inbox was taken back: its sender hears 451 and retries.
    expect((await store.listMessages(fine.id)).map((m) => m.subject).sort()).toEqual(['kept 1', 'kept 2']);
    expect((await readdir(join(dataDir, 'messages', fine.id))).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });
});
