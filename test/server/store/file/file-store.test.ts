import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, openFileStore } from '../../../../src/server/store/file/file-store';
import { cleanupAfterEach } from '../../../harness/cleanup';
import { waitFor } from '../../../harness/wait';
import { runStoreAdminSuite } from '../store-admin-suite';
import { newMessage, runStoreSuite, sessionRecord, type StoreHarness } from '../store-suite';

const cleanup = cleanupAfterEach();
/** A data dir that does not exist yet, inside a temp dir removed after the test. */
const tempDir = async () => join(await cleanup.tempDir('tempmail-store-'), 'data');

async function fileHarness(): Promise<StoreHarness> {
  const dataDir = await tempDir();
  const harness: StoreHarness = {
    store: await openFileStore(dataDir),
    async reopen() {
      await harness.store.close();
      harness.store = await openFileStore(dataDir);
      return harness.store;
    },
    async cleanup() {
      await harness.store.close();
    },
  };
  return harness;
}

runStoreSuite('FileStore', fileHarness);
runStoreAdminSuite('FileStore', fileHarness);

describe('FileStore on disk', () => {
  it('makes directories 0700 and files 0600', async () => {
    const dataDir = await tempDir();
    const store = await openFileStore(dataDir);
    const s = sessionRecord();
    await store.putSession(s);
    await store.addMessage(s.id, newMessage());
    await store.deleteMessage(s.id, 1); // writes the hwm file too
    await store.addMessage(s.id, newMessage());
    await store.close();
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    for (const d of [dataDir, join(dataDir, 'sessions'), join(dataDir, 'messages'), join(dataDir, 'messages', s.id)]) {
      expect(await mode(d)).toBe(0o700);
    }
    expect(await mode(join(dataDir, 'sessions', `${s.id}.json`))).toBe(0o600);
    expect(await mode(join(dataDir, 'messages', s.id, '2.msg'))).toBe(0o600);
    expect(await mode(join(dataDir, 'messages', s.id, 'hwm'))).toBe(0o600);
  });

  it('ignores and removes temp-file leftovers and orphan message directories at open', async () => {
    const dataDir = await tempDir();
    let store = await openFileStore(dataDir);
    const s = sessionRecord();
    await store.putSession(s);
    await store.addMessage(s.id, newMessage());
    await store.close();
    const msgDir = join(dataDir, 'messages', s.id);
    // What a crash mid-write leaves: temp files, possibly complete, possibly cut short.
    await writeFile(join(msgDir, '.tmp-2.msg-abcdef'), 'half a mess');
    await writeFile(join(dataDir, 'sessions', '.tmp-zzz.json-123456'), '{"id":');
    // What a crash mid-delete of a session leaves: messages without a session record.
    await mkdir(join(dataDir, 'messages', 'orphan'), { recursive: true });
    await writeFile(join(dataDir, 'messages', 'orphan', '1.msg'), 'x');
    store = await openFileStore(dataDir);
    expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual([1]);
    expect(await store.countSessions()).toBe(1);
    const next = await store.addMessage(s.id, newMessage());
    expect(next.id).toBeGreaterThan(1);
    await store.close();
    expect((await readdir(msgDir)).sort()).toEqual(['1.msg', `${next.id}.msg`]);
    expect(await readdir(join(dataDir, 'sessions'))).toEqual([`${s.id}.json`]);
    expect(await readdir(join(dataDir, 'messages'))).toEqual([s.id]);
  });

  it('sets a damaged file aside: never served, its id never reused', async () => {
    const dataDir = await tempDir();
    const lines: string[] = [];
    let store = await openFileStore(dataDir);
    const s = sessionRecord();
    const bad = sessionRecord();
    await store.putSession(s);
    await store.putSession(bad);
    await store.addMessage(s.id, newMessage());
    await store.addMessage(s.id, newMessage());
    await store.close();
    const damaged = join(dataDir, 'messages', s.id, '2.msg');
    await truncate(damaged, (await stat(damaged)).size - 10);
    await writeFile(join(dataDir, 'sessions', `${bad.id}.json`), '{"id": "not whole');
    store = await openFileStore(dataDir, { log: (l) => lines.push(l) });
    expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual([1]);
    expect(await store.getSession(bad.id)).toBeUndefined();
    const third = await store.addMessage(s.id, newMessage());
    expect(third.id).toBeGreaterThan(2);
    await store.close();
    expect(lines.join('\n')).toMatch(/set aside .*2\.msg: size/);
    // Set aside stays set aside: a second open neither serves it nor reuses its id.
    store = await openFileStore(dataDir);
    expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual([1, third.id]);
    expect((await store.addMessage(s.id, newMessage())).id).toBeGreaterThan(third.id);
    await store.close();
  });

  it('rejects a write it cannot make (directory replaced by a file), and writes again once it can', async () => {
    const dataDir = await tempDir();
    const store = await openFileStore(dataDir);
    const s = sessionRecord();
    await store.putSession(s);
    const msgDir = join(dataDir, 'messages', s.id);
    // Root ignores chmod 0500, so make the path itself unusable: a real ENOTDIR from the kernel.
    await rm(msgDir, { recursive: true });
    await writeFile(msgDir, 'not a directory');
    await expect(store.addMessage(s.id, newMessage())).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await store.listMessages(s.id)).toEqual([]);
    await rm(msgDir);
    await mkdir(msgDir, { mode: 0o700 });
    expect((await store.addMessage(s.id, newMessage())).id).toBe(2);
    const sessionsDir = join(dataDir, 'sessions');
    await rm(sessionsDir, { recursive: true });
    await writeFile(sessionsDir, '');
    await expect(store.putSession(sessionRecord())).rejects.toMatchObject({ code: 'ENOTDIR' });
    await store.close();
  });

  it('a session whose messages directory cannot be made is not kept: it holds no address, now or after a restart', async () => {
    const dataDir = await tempDir();
    const store = await openFileStore(dataDir);
    const messagesDir = join(dataDir, 'messages');
    // A real ENOTDIR: the messages directory is a plain file, the sessions directory is fine.
    await rm(messagesDir, { recursive: true });
    await writeFile(messagesDir, 'not a directory');
    const s = sessionRecord();
    await expect(store.putSession(s)).rejects.toMatchObject({ code: 'ENOTDIR' });
    // The caller heard "failed": no half-made session may hold the address (a retry would get 409).
    expect(await store.findSessionByAddress(s.addressKey)).toBeUndefined();
    expect(await store.getSessionByTokenHash(s.tokenHash)).toBeUndefined();
    expect(await store.countSessions()).toBe(0);
    expect(await readdir(join(dataDir, 'sessions'))).toEqual([]);
    await store.close();
    await rm(messagesDir);
    const reopened = await openFileStore(dataDir);
    expect(await reopened.listSessions()).toEqual([]);
    await reopened.putSession(s);
    expect(await reopened.findSessionByAddress(s.addressKey)).toEqual(s);
    await reopened.close();
  });

  it('opens with one unreadable message directory, and refuses adds there rather than reuse ids', async () => {
    const dataDir = await tempDir();
    let store = await openFileStore(dataDir);
    const broken = sessionRecord();
    const fine = sessionRecord();
    await store.putSession(broken);
    await store.putSession(fine);
    await store.addMessage(broken.id, newMessage());
    await store.addMessage(fine.id, newMessage());
    await store.close();
    const msgDir = join(dataDir, 'messages', broken.id);
    await rm(msgDir, { recursive: true });
    await writeFile(msgDir, 'not a directory');
    const lines: string[] = [];
    store = await openFileStore(dataDir, { log: (l) => lines.push(l) });
    expect(lines.join('\n')).toMatch(/cannot read messages of session .*ENOTDIR/);
    expect((await store.listMessages(fine.id)).map((m) => m.id)).toEqual([1]);
    expect((await store.addMessage(fine.id, newMessage())).id).toBeGreaterThan(1);
    await expect(store.addMessage(broken.id, newMessage())).rejects.toMatchObject({ code: 'ENOTDIR' });
    await store.close();
  });

  it('rejects at open when the data dir cannot be a directory', async () => {
    const dataDir = await tempDir();
    await mkdir(join(dataDir, '..'), { recursive: true });
    await writeFile(dataDir, 'a file');
    await expect(new FileStore(dataDir).open()).rejects.toMatchObject({ code: 'EEXIST' });
    await chmod(dataDir, 0o600);
  });

  // How long they take is the bench's figure (smtp_*), not a test's.
  it('adds 1,000 messages ten at a time and, reopened, holds every one of them', async () => {
    const dataDir = await tempDir();
    let store = await openFileStore(dataDir);
    const s = sessionRecord();
    await store.putSession(s);
    const msg = newMessage();
    // Ten at a time, as several SMTP connections would.
    for (let i = 0; i < 100; i++) await Promise.all(Array.from({ length: 10 }, () => store.addMessage(s.id, msg)));
    expect(await store.countMessages(s.id)).toBe(1000);
    await store.close();
    store = await openFileStore(dataDir);
    expect(await store.countMessages(s.id)).toBe(1000);
    await store.close();
  }, 120_000);
});

describe('FileStore under kill -9', () => {
  it('loses no acknowledged message and holds no duplicate or damaged one, over several kills', async () => {
    const dataDir = await tempDir();
    const sessionId = 'crash-session';
    const acked = new Map<number, string>();
    for (let round = 0; round < 3; round++) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/server/store/file/store-writer.ts', dataDir, sessionId],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const before = acked.size;
      // Kill after a random number of acknowledged adds in this round, mid-stream.
      const target = 20 + Math.floor(Math.random() * 60);
      await waitFor(() => (out.match(/^ack /gm)?.length ?? 0) >= target, { timeoutMs: 20_000, message: 'writer acks' });
      child.kill('SIGKILL');
      await exited;
      for (const m of out.matchAll(/^ack (\d+) (\S+)$/gm)) acked.set(Number(m[1]), m[2]!);
      expect(acked.size).toBeGreaterThan(before);
    }
    const store = await openFileStore(dataDir);
    const list = await store.listMessages(sessionId);
    const ids = list.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const subjects = new Map(list.map((m) => [m.id, m.subject]));
    for (const [id, marker] of acked) expect(subjects.get(id), `acked message ${id}`).toBe(marker);
    // Every stored message reads back whole (an unacked one may be there too; never a broken one).
    const markers = new Set<string>();
    for (const m of list) {
      const raw = (await store.rawMessage(sessionId, m.id))!;
      expect(raw.toString()).toContain(`Subject: ${m.subject}`);
      expect(markers.has(m.subject)).toBe(false);
      markers.add(m.subject);
    }
    await store.close();
    console.log(`store kill -9: ${acked.size} acknowledged over 3 kills, ${list.length} found, 0 lost`);
  }, 90_000);
});
