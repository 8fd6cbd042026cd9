/**
 * Two processes on one data dir happen by default: `tempmail-tui serve` and the app's in-process service
 * both use the XDG data dir. Each keeps its own index and hands out message ids from it, so both can
 * pick the same id for one session. A message file is published without replacing an existing one, so
 * the second writer moves on to the next id instead of overwriting a message the first acknowledged.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileDurable } from '../../../src/server/store/file/durable-fs';
import { openFileStore } from '../../../src/server/store/file/file-store';
import { newMessage, sessionRecord } from './store-suite';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tempmail-shared-'));
  dirs.push(dir);
  return dir;
}

describe('writeFileDurable without replace', () => {
  it('refuses an existing name with EEXIST, keeps the first content and leaves no temp file', async () => {
    const dir = await tempDir();
    await writeFileDurable(dir, '1.msg', [Buffer.from('first')], { replace: false });
    const second = writeFileDurable(dir, '1.msg', [Buffer.from('second')], { replace: false });
    await expect(second).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(join(dir, '1.msg'), 'utf8')).toBe('first');
    expect(await readdir(dir)).toEqual(['1.msg']);
  });

  it('still replaces by default (session records and the high-water mark are rewritten in place)', async () => {
    const dir = await tempDir();
    await writeFileDurable(dir, 'hwm', [Buffer.from('1\n')]);
    await writeFileDurable(dir, 'hwm', [Buffer.from('2\n')]);
    expect(await readFile(join(dir, 'hwm'), 'utf8')).toBe('2\n');
    expect(await readdir(dir)).toEqual(['hwm']);
  });
});

describe('two FileStores on one data dir', () => {
  it('never overwrite each other: both messages for one session are kept, under different ids', async () => {
    const dataDir = join(await tempDir(), 'data');
    const first = await openFileStore(dataDir);
    const s = sessionRecord();
    await first.putSession(s);
    const second = await openFileStore(dataDir); // knows the session, and that it holds no message yet
    const a = await first.addMessage(s.id, newMessage({ subject: 'from the first' }));
    const b = await second.addMessage(s.id, newMessage({ subject: 'from the second' }));
    expect(a.id).toBe(1);
    // The second found the session on disk: its first id is the clock's (file-inbox.ts clockId).
    expect(b.id).toBeGreaterThan(a.id);
    await first.close();
    await second.close();

    const reopened = await openFileStore(dataDir);
    const subjects = (await reopened.listMessages(s.id)).map((m) => [m.id, m.subject]);
    expect(subjects).toEqual([
      [1, 'from the first'],
      [b.id, 'from the second'],
    ]);
    // The next id continues after both.
    expect((await reopened.addMessage(s.id, newMessage())).id).toBeGreaterThan(b.id);
    await reopened.close();
  });
});
