/**
 * The persistent Store: plain files under a data directory (no native modules), with an in-memory index
 * loaded at open.
 *
 *   DATA/sessions/<sessionId>.json      one session record
 *   DATA/messages/<sessionId>/...       its inbox (see file-inbox.ts)
 *
 * Every file appears by temp-write + fsync + rename + directory fsync (durable-fs.ts), so after `kill -9`
 * a file is either whole or absent: an acknowledged message is never lost, never half-written and never
 * doubled. open() removes temp leftovers and message directories whose session is gone, and sets aside
 * (renames to *.corrupt) any file that does not check out. Directories are 0700, files 0600.
 *
 * One service runs per data dir (service.lock), so operations that must be atomic (claiming an address,
 * the inbox limit) are atomic within this process: counted and reserved before their first await.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable, unlinkDurable, writeFileDurable } from './durable-fs';
import { inboxCount, listInbox, newInbox, readSection, removeMessage, writeMessage, type InboxEntry } from './file-inbox';
import { parseBody } from './message-file';
import { LimitersByRule } from '../rate-limit';
import {
  StoreClosedError,
  UnknownSessionError,
  type Delivery,
  type NewMessage,
  type RateRule,
  type Store,
  type StoredMessage,
  type StoredMessageMeta,
  type StoredSession,
  storageErrorText,
} from './store';
import { loadMessageDir, loadSessions, metaCopy, SESSION_ID } from './file-store-load';
import { SessionIndex } from './session-index';

export interface FileStoreOptions {
  /** One line per oddity found at open (corrupt file set aside, orphan removed). */
  log?: (line: string) => void;
}

/** The file-backed Store. */
export class FileStore implements Store {
  private readonly sessionsDir: string;
  private readonly messagesDir: string;
  private readonly sessions = new SessionIndex<InboxEntry>();
  private readonly pending = new Set<Promise<unknown>>();
  private state: 'new' | 'open' | 'closed' = 'new';
  private readonly log: (line: string) => void;
  /** The last insertSession of each address key still running: one claim of an address at a time. */
  private readonly claims = new Map<string, Promise<unknown>>();
  /** Create-session hits, in memory: one service runs per data dir (service.lock), and a restart forgets them. */
  private readonly limiters = new LimitersByRule();

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
  private index(session: StoredSession): InboxEntry {
    return this.sessions.put(session, () => newInbox(session, this.messagesDir));
  }

  private copyOf(entry: InboxEntry | undefined): StoredSession | undefined {
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

  insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'> {
    const key = session.addressKey;
    const before = this.claims.get(key) ?? Promise.resolve();
    const claim = before.then(async () => {
      // The newest holder first; once it is gone, an older one (rare) holds the address in its turn.
      for (let holder = this.sessions.withAddress(key); holder; holder = this.sessions.withAddress(key)) {
        if (holder.session.expiresAt > now) return 'taken' as const;
        await this.deleteSession(holder.session.id);
      }
      await this.putSession(session);
      return 'created' as const;
    });
    const settled = claim.catch(() => undefined);
    this.claims.set(key, settled);
    void settled.then(() => {
      if (this.claims.get(key) === settled) this.claims.delete(key);
    });
    return claim;
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

  async purgeExpired(now: number): Promise<number> {
    this.check();
    let removed = 0;
    for (const entry of [...this.sessions.values()]) {
      if (entry.session.expiresAt <= now && (await this.deleteSession(entry.session.id))) removed++;
    }
    return removed;
  }

  addMessage(sessionId: string, input: NewMessage): Promise<StoredMessageMeta> {
    return this.track(async () => {
      const entry = this.sessions.get(sessionId);
      if (!entry) throw new UnknownSessionError();
      if (entry.loadError) throw entry.loadError;
      entry.adding++;
      return this.append(entry, input).finally(() => entry.adding--);
    });
  }

  deliver(sessionIds: readonly string[], input: NewMessage, inboxLimit: number): Promise<Delivery> {
    return this.track(async () => {
      const entries: InboxEntry[] = [];
      const gone: string[] = [];
      for (const id of new Set(sessionIds)) {
        const entry = this.sessions.get(id);
        if (!entry) gone.push(id);
        else if (entry.loadError) throw entry.loadError;
        else entries.push(entry);
      }
      // Counted and reserved before the first await: no other add can slip between the count and the write.
      const full = entries.filter((e) => inboxCount(e) >= inboxLimit).map((e) => e.session.id);
      const stored = new Map<string, StoredMessageMeta>();
      if (full.length > 0) return { stored, full, gone };
      for (const e of entries) e.adding++;
      const results = await Promise.allSettled(entries.map((e) => this.append(e, input).finally(() => e.adding--)));
      results.forEach((r, i) => r.status === 'fulfilled' && stored.set(entries[i]!.session.id, r.value));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (!failed) return { stored, full, gone };
      // The sender hears 451 and sends again: take back the copies already written, so none is doubled.
      for (const [id, meta] of stored) {
        await removeMessage(this.sessions.get(id), meta.id).catch((err: unknown) => {
          this.log(`store: could not take back message ${meta.id} of session ${id}: ${storageErrorText(err)}`);
        });
      }
      throw failed.reason;
    });
  }

  /** Writes a message into `entry`'s inbox and indexes it. */
  private async append(entry: InboxEntry, input: NewMessage): Promise<StoredMessageMeta> {
    const layout = await writeMessage(entry, input, this.messagesDir);
    // A session deleted meanwhile is not brought back; its directory is gone or an orphan.
    if (this.sessions.get(entry.session.id) === entry) entry.messages.set(layout.meta.id, layout);
    return metaCopy(layout.meta);
  }

  async listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    this.check();
    return listInbox(this.sessions.get(sessionId));
  }

  async countMessages(sessionId: string): Promise<number> {
    this.check();
    return this.sessions.get(sessionId)?.messages.size ?? 0;
  }

  private async section(sessionId: string, id: number, index: number): Promise<Buffer | undefined> {
    this.check();
    return readSection(this.sessions.get(sessionId), id, index);
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
    return this.track(() => removeMessage(this.sessions.get(sessionId), id));
  }

  async hitCreateLimit(key: string, now: number, rule: RateRule): Promise<number> {
    this.check();
    return this.limiters.hit(key, now, rule);
  }

  async probe(): Promise<boolean> {
    this.check();
    return false;
  }
}

/** Opens a FileStore on `dataDir` (created if needed). */
export async function openFileStore(dataDir: string, options?: FileStoreOptions): Promise<FileStore> {
  const store = new FileStore(dataDir, options);
  await store.open();
  return store;
}
