/**
 * Issue 14.4: an entry in the data dir that is not what its name says (a dangling symlink, a directory
 * named like a message file, a FIFO, a directory where the high-water mark should be) costs that entry
 * only. The rest of the inbox is listed and readable after a restart, the entry is named in the log once
 * (not again on the next access, nor at the next restart), and its id is never handed out again.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../../../src/server/store/file/file-store';
import type { Store } from '../../../../src/server/store/store';
import { cleanupAfterEach } from '../../../harness/cleanup';
import { newMessage, sessionRecord } from '../store-suite';

const cleanup = cleanupAfterEach();

/** A data dir holding one session with messages 1..count, closed again. */
async function storeWith(count: number) {
  const dataDir = join(await cleanup.tempDir('tempmail-bad-entry-'), 'data');
  const store = await openFileStore(dataDir);
  const s = sessionRecord();
  await store.putSession(s);
  for (let i = 1; i <= count; i++) await store.addMessage(s.id, newMessage({ subject: `message ${i}` }));
  await store.close();
  return { dataDir, session: s, inbox: join(dataDir, 'messages', s.id) };
}

/** Opens the store with its log collected. */
async function reopen(dataDir: string) {
  const lines: string[] = [];
  const store = await openFileStore(dataDir, { log: (l) => lines.push(l) });
  cleanup.defer(store, (s) => s.close());
  return { store, lines };
}

async function subjects(store: Store, sessionId: string): Promise<string[]> {
  return (await store.listMessages(sessionId)).map((m) => `${m.id} ${m.subject}`);
}

const mentioning = (lines: string[], what: string) => lines.filter((l) => l.includes(what));

describe('FileStore: one bad entry in an inbox costs that entry only', () => {
  for (const [kind, make] of [
    ['a dangling symlink', (path: string) => symlink(join(path, '..', 'nowhere.msg'), path)],
    ['a directory', (path: string) => mkdir(path)],
    [
      'a symlink to a directory',
      async (path: string) => {
        await mkdir(`${path}-target`);
        await symlink(`${path}-target`, path);
      },
    ],
  ] as const) {
    it(`named like a message file, ${kind}: the rest is listed and read, logged once, its id never reused`, async () => {
      const { dataDir, session, inbox } = await storeWith(3);
      // The bad entry takes id 2's place, and one sits above the newest message (id 7).
      await rm(join(inbox, '2.msg'));
      await make(join(inbox, '2.msg'));
      await make(join(inbox, '7.msg'));
      let { store, lines } = await reopen(dataDir);
      expect(await subjects(store, session.id)).toEqual(['1 message 1', '3 message 3']);
      expect(await store.countMessages(session.id)).toBe(2);
      expect((await store.getMessage(session.id, 3))?.text).toBe(newMessage().text);
      expect((await store.rawMessage(session.id, 1))?.equals(newMessage().raw)).toBe(true);
      expect(await store.getMessage(session.id, 2)).toBeUndefined();
      expect(await store.deleteMessage(session.id, 7)).toBe(false);
      // Above every id on disk (a session found at open takes the clock's ids: file-inbox.ts clockId).
      const after = await store.addMessage(session.id, newMessage({ subject: 'after' }));
      expect(after.id).toBeGreaterThan(7);
      expect(await subjects(store, session.id)).toEqual(['1 message 1', '3 message 3', `${after.id} after`]);
      // Once per entry, however often the inbox is read.
      expect(mentioning(lines, '2.msg'), lines.join('\n')).toHaveLength(1);
      expect(mentioning(lines, '7.msg'), lines.join('\n')).toHaveLength(1);
      await store.close();

      ({ store, lines } = await reopen(dataDir));
      expect(await subjects(store, session.id)).toEqual(['1 message 1', '3 message 3', `${after.id} after`]);
      expect((await store.addMessage(session.id, newMessage({ subject: 'later' }))).id).toBeGreaterThan(after.id);
      expect(lines, 'a second restart says nothing more about an entry already named').toEqual([]);
    });
  }

  it('a FIFO named like a message file does not hang the inbox', async () => {
    const { dataDir, session, inbox } = await storeWith(2);
    const made = spawnSync('mkfifo', [join(inbox, '5.msg')]);
    expect(made.status, String(made.stderr)).toBe(0);
    const { store, lines } = await reopen(dataDir);
    expect(await subjects(store, session.id)).toEqual(['1 message 1', '2 message 2']);
    expect((await store.addMessage(session.id, newMessage())).id).toBeGreaterThan(5);
    expect(mentioning(lines, '5.msg')).toHaveLength(1);
  });

  it('a directory where the high-water mark file belongs: the inbox is listed and takes mail', async () => {
    const { dataDir, session, inbox } = await storeWith(2);
    await mkdir(join(inbox, 'hwm'));
    const { store, lines } = await reopen(dataDir);
    expect(await subjects(store, session.id)).toEqual(['1 message 1', '2 message 2']);
    const third = await store.addMessage(session.id, newMessage());
    expect(third.id).toBeGreaterThan(2);
    // Deleting the newest must still record a high-water mark, so its id is never handed out again.
    expect(await store.deleteMessage(session.id, third.id)).toBe(true);
    expect((await store.addMessage(session.id, newMessage())).id).toBe(third.id + 1);
    expect(mentioning(lines, 'hwm')).toHaveLength(1);
  });
});

describe('FileStore: one bad entry among the sessions costs that session only', () => {
  it('a directory or a dangling symlink named like a session record', async () => {
    const { dataDir, session } = await storeWith(2);
    const sessions = join(dataDir, 'sessions');
    await mkdir(join(sessions, 'dir-session.json'));
    await symlink(join(sessions, 'gone.json'), join(sessions, 'link-session.json'));
    let { store, lines } = await reopen(dataDir);
    expect(await store.listSessions()).toEqual([session]);
    expect(await subjects(store, session.id)).toEqual(['1 message 1', '2 message 2']);
    expect(mentioning(lines, 'dir-session.json')).toHaveLength(1);
    expect(mentioning(lines, 'link-session.json')).toHaveLength(1);
    await store.close();
    ({ store, lines } = await reopen(dataDir));
    expect(await store.listSessions()).toEqual([session]);
    expect(lines).toEqual([]);
  });

  it("a dangling symlink where a session's message directory belongs: the other sessions are whole", async () => {
    const { dataDir, session } = await storeWith(2);
    let store = (await reopen(dataDir)).store;
    const other = sessionRecord();
    await store.putSession(other);
    await store.addMessage(other.id, newMessage({ subject: 'other' }));
    await store.close();
    const dir = join(dataDir, 'messages', other.id);
    await rm(dir, { recursive: true });
    await symlink(join(dataDir, 'nowhere'), dir);
    const opened = await reopen(dataDir);
    store = opened.store;
    expect(await subjects(store, session.id)).toEqual(['1 message 1', '2 message 2']);
    expect((await store.addMessage(session.id, newMessage())).id).toBeGreaterThan(2);
    // Its own messages are unknown: it takes none rather than hand out an id twice.
    await expect(store.addMessage(other.id, newMessage())).rejects.toThrow();
    await expect(store.listMessages(other.id)).resolves.toEqual([]);
    expect(mentioning(opened.lines, other.id)).toHaveLength(1);
    expect(await readdir(join(dataDir, 'messages'))).toContain(session.id);
  });
});
