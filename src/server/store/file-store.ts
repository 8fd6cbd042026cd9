/**
 * The persistent Store: plain files under a data directory (no native modules), with an in-memory index
 * loaded at open.
 *
 *   DATA/sessions/<sessionId>.json      one session record
 *   DATA/messages/<sessionId>/<n>.msg   one message (see message-file.ts)
 *   DATA/messages/<sessionId>/hwm       highest id ever handed out, written before deleting the newest
 *
 * Every file appears by temp-write + fsync + rename + directory fsync (durable-fs.ts), so after `kill -9`
 * a file is either whole or absent: an acknowledged message is never lost, never half-written and never
 * doubled. open() removes temp leftovers and message directories whose session is gone, and sets aside
 * (renames to *.corrupt) any file that does not check out. Directories are 0700, files 0600.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable, readExactly, unlinkDurable, writeFileDurable } from './durable-fs';
import { encodeMessageFile, parseBody, sectionOf, type MessageLayout } from './message-file';
import {
  StoreClosedError,
  UnknownSessionError,
  type NewMessage,
  type Store,
  type StoredMessage,
  type StoredMessageMeta,
  type StoredSession,
  storageErrorText,
} from './store';
import { HWM, loadMessageDir, loadSessions, metaCopy, SESSION_ID } from './file-store-load';
import { SessionIndex } from './session-index';

interface SessionEntry {
  session: StoredSession;
  dir: string;
  /** The message directory exists and its entry is durable. */
  dirReady: boolean;
  messages: Map<number, MessageLayout>;
  lastId: number;
  /** What the hwm file on disk says (0 when absent). */
  hwmOnDisk: number;
  /** Set when the message directory could not be read at open: ids are unknown, so no adds. */
  loadError?: unknown;
}

/** Ids tried past ones another writer already holds before an add gives up. */
const MAX_ID_ATTEMPTS = 1000;

export interface FileStoreOptions {
  /** One line per oddity found at open (corrupt file set aside, orphan removed). */
  log?: (line: string) => void;
}


/** The file-backed Store. */
export class FileStore implements Store {
  private readonly sessionsDir: string;
  private readonly messagesDir: string;
  private readonly sessions = new SessionIndex<SessionEntry>();
  private readonly pending = new Set<Promise<unknown>>();
  private state: 'new' | 'open' | 'closed' = 'new';
  private readonly log: (line: string) => void;

  constructor(
    readonly dataDir: string,
    options: FileStoreOptions = {},
  ) {
    this.sessionsDir = join(dataDir, 'sessions');
    this.messagesDir = join(dataDir, 'messages');
    this.log = options.log ?? (() => undefined);
  }

  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('FileStore.open() called twice');
    await mkdirDurable(this.dataDir, join(this.dataDir, '..'));
    await mkdirDurable(this.sessionsDir, this.dataDir);
    await mkdirDurable(this.messagesDir, this.dataDir);
    for (const session of await loadSessions(this.sessionsDir, this.log)) this.index(session);
    await this.loadMessages();
    this.state = 'open';
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await Promise.allSettled([...this.pending]);
  }

  /** Runs a write while counting it in flight, so close() can wait for it. */
  private track<T>(work: () => Promise<T>): Promise<T> {
    if (this.state !== 'open') return Promise.reject(new StoreClosedError());
    const p = work();
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  private check(): void {
    if (this.state !== 'open') throw new StoreClosedError();
  }

  private async loadMessages(): Promise<void> {
    for (const name of await readdir(this.messagesDir)) {
      const entry = this.sessions.get(name);
      const dir = join(this.messagesDir, name);
      if (!entry) {
        // A session deleted just before a crash (its record goes first), or a temp leftover.
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      entry.dirReady = true;
      try {
        Object.assign(entry, await loadMessageDir(dir, this.log));
      } catch (err) {
        // Keep serving the other sessions. This one refuses new messages until a restart can read
        // its directory: without its files, ids could be handed out twice.
        this.log(`store: cannot read messages of session ${name}: ${storageErrorText(err)}`);
        entry.loadError = err;
      }
    }
  }

  /** Indexes `session`, with a new entry (no messages yet) when its id is new. */
  private index(session: StoredSession): SessionEntry {
    return this.sessions.put(session, () => ({
      session,
      dir: join(this.messagesDir, session.id),
      dirReady: false,
      messages: new Map(),
      lastId: 0,
      hwmOnDisk: 0,
    }));
  }

  private copyOf(entry: SessionEntry | undefined): StoredSession | undefined {
    return entry && { ...entry.session };
  }

  putSession(session: StoredSession): Promise<void> {
    return this.track(async () => {
      if (!SESSION_ID.test(session.id)) throw new Error('session id must be 1-64 of [A-Za-z0-9_-]');
      const copy = { ...session };
      // The messages directory comes first: a session whose directory cannot be made must not exist at all
      // (the caller hears "failed", and a kept record would hold the address). A directory left without
      // its record, if the record then fails, is an orphan that open() removes.
      const known = this.sessions.get(copy.id);
      if (!known?.dirReady) await mkdirDurable(join(this.messagesDir, copy.id), this.messagesDir);
      await writeFileDurable(this.sessionsDir, `${copy.id}.json`, [Buffer.from(JSON.stringify(copy), 'utf8')]);
      this.index(copy).dirReady = true;
    });
  }

  private async ensureDir(entry: SessionEntry): Promise<void> {
    if (entry.dirReady) return;
    await mkdirDurable(entry.dir, this.messagesDir);
    entry.dirReady = true;
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.check();
    return this.copyOf(this.sessions.get(id));
  }

  async getSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    this.check();
    return this.copyOf(this.sessions.withToken(tokenHash));
  }

  async findSessionByAddress(addressKey: string): Promise<StoredSession | undefined> {
    this.check();
    return this.copyOf(this.sessions.withAddress(addressKey));
  }

  async listSessions(): Promise<StoredSession[]> {
    this.check();
    return [...this.sessions.values()].map((e) => ({ ...e.session }));
  }

  async countSessions(): Promise<number> {
    this.check();
    return this.sessions.size;
  }

  deleteSession(id: string): Promise<boolean> {
    return this.track(async () => {
      const entry = this.sessions.get(id);
      if (!entry) return false;
      // The record goes first and durably: from then on the session is gone, and a crash before the
      // messages are removed leaves an orphan directory that open() cleans.
      await unlinkDurable(this.sessionsDir, `${id}.json`);
      this.sessions.remove(entry);
      await rm(entry.dir, { recursive: true, force: true }).catch((err: unknown) => {
        this.log(`store: could not remove messages of deleted session ${id}: ${storageErrorText(err)}`);
      });
      return true;
    });
  }

  addMessage(sessionId: string, input: NewMessage): Promise<StoredMessageMeta> {
    return this.track(async () => {
      const entry = this.sessions.get(sessionId);
      if (!entry) throw new UnknownSessionError();
      if (entry.loadError) throw entry.loadError;
      await this.ensureDir(entry);
      const { raw, attachments, senderName, senderEmail, subject, receivedAt, to, cc, text, html, headers } = input;
      const base = {
        senderName,
        senderEmail,
        subject,
        receivedAt,
        size: raw.length,
        attachments: attachments.map((a, i) => ({
          id: i + 1,
          filename: a.filename,
          contentType: a.contentType,
          size: a.bytes.length,
        })),
      };
      let meta: StoredMessageMeta;
      let chunks: Buffer[];
      for (let attempt = 0; ; attempt++) {
        // Taken before the write's first await, so concurrent adds never share an id. A failed add burns its id.
        meta = { id: ++entry.lastId, ...base };
        chunks = encodeMessageFile(meta, { to, cc, text, html, headers }, raw, attachments.map((a) => a.bytes));
        try {
          // Never over an existing file: another process on this data dir may have taken the id.
          await writeFileDurable(entry.dir, `${meta.id}.msg`, chunks, { replace: false });
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_ID_ATTEMPTS) throw err;
        }
      }
      const id = meta.id;
      const header = chunks[0]?.length ?? 0;
      const parts = [chunks[1]?.length ?? 0, raw.length, ...attachments.map((a) => a.bytes.length)];
      // A session deleted meanwhile is not brought back; its directory is gone or an orphan.
      if (this.sessions.get(sessionId) === entry) entry.messages.set(id, { meta, bodyOffset: header, parts });
      return metaCopy(meta);
    });
  }

  async listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    this.check();
    const entry = this.sessions.get(sessionId);
    if (!entry) return [];
    return [...entry.messages.values()].map((l) => metaCopy(l.meta)).sort((a, b) => a.id - b.id);
  }

  async countMessages(sessionId: string): Promise<number> {
    this.check();
    return this.sessions.get(sessionId)?.messages.size ?? 0;
  }

  private async section(sessionId: string, id: number, index: number): Promise<Buffer | undefined> {
    this.check();
    const entry = this.sessions.get(sessionId);
    const layout = entry?.messages.get(id);
    const where = layout && sectionOf(layout, index);
    if (!entry || !where) return undefined;
    try {
      return await readExactly(join(entry.dir, `${id}.msg`), where.position, where.length);
    } catch (err) {
      // Deleted between the lookup and the read.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !entry.messages.has(id)) return undefined;
      throw err;
    }
  }

  async getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    const layout = this.sessions.get(sessionId)?.messages.get(id);
    const body = await this.section(sessionId, id, 0);
    if (!layout || !body) return undefined;
    return { ...metaCopy(layout.meta), ...parseBody(body) };
  }

  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    return this.section(sessionId, id, 1);
  }

  async attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    if (!Number.isSafeInteger(attachmentId) || attachmentId < 1) return undefined;
    return this.section(sessionId, id, attachmentId + 1);
  }

  deleteMessage(sessionId: string, id: number): Promise<boolean> {
    return this.track(async () => {
      const entry = this.sessions.get(sessionId);
      if (!entry || !entry.messages.has(id)) return false;
      if (entry.hwmOnDisk < id) {
        // Deleting the newest file would let a restart hand its id out again: record the high-water mark.
        const hwm = entry.lastId;
        await writeFileDurable(entry.dir, HWM, [Buffer.from(`${hwm}\n`)]);
        entry.hwmOnDisk = Math.max(entry.hwmOnDisk, hwm);
      }
      const removed = await unlinkDurable(entry.dir, `${id}.msg`);
      entry.messages.delete(id);
      return removed;
    });
  }
}

/** Opens a FileStore on `dataDir` (created if needed). */
export async function openFileStore(dataDir: string, options?: FileStoreOptions): Promise<FileStore> {
  const store = new FileStore(dataDir, options);
  await store.open();
  return store;
}
