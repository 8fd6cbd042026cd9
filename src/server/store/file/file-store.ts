/**
 * The persistent Store: plain files under a data directory (no native modules), with an in-memory index
 * of the sessions loaded at open and of each inbox's messages loaded when the inbox is first used.
 *
 *   DATA/sessions/<sessionId>.json      one session record
 *   DATA/messages/<sessionId>/...       its inbox (see file-inbox.ts)
 *
 * Every file appears by temp-write + fsync + link/rename + directory fsync (durable-fs.ts; message
 * files in batches, group-commit.ts), so after `kill -9` a file is either whole or absent: an
 * acknowledged message is never lost, never half-written and never doubled. open() reads the session
 * records and removes message directories whose session is gone; an inbox's directory is read (temp
 * leftovers removed, damaged entries set aside as *.corrupt, see file-store-load.ts) the first time it
 * is used, so opening does not grow with the messages stored. Directories are 0700, files 0600.
 *
 * One service runs per data dir (service.lock), so operations that must be atomic (claiming an address,
 * the inbox limit) are atomic within this process: counted and reserved with no await between.
 */
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, mkdirDurable, writeFileDurable } from './durable-fs';
import { appendToAll, cannotRead, listInbox, loadInbox, newInbox, readSection, removeInboxDirs, removeMessage, writeMessage, type InboxEntry } from './file-inbox';
import { parseBody } from './message-file';
import { LimitersByRule } from '../../rate-limit';
import { CursorFile } from './cursor-file';
import { LocalClaims } from '../local-claims';
import {
  StoreClosedError,
  type FetchClaim,
  type FetchCursor,
  type FetchStatus,
  UnknownSessionError,
  type Delivery,
  type NewMessage,
  type RateRule,
  type Store,
  type StoredMessage,
  type StoredMessageMeta,
  type StoredSession,
  storageErrorText,
} from '../store';
import { loadSessions, metaCopy, scanMessageDirs, SESSION_ID } from './file-store-load';
import { GroupCommit, type BatchReport } from './group-commit';
import { SessionIndex } from './session-index';

export interface FileStoreOptions {
  /** One line per oddity found (corrupt file set aside, unreadable inbox): each entry is named once. */
  log?: (line: string) => void;
  /** Called after each group commit of message files (tests count batches and directory fsyncs). */
  onBatch?: (report: BatchReport) => void;
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
  private readonly commit: GroupCommit;
  /** Names this store's inbox versions: a version of an earlier run never equals one of this run. */
  private readonly epoch = randomBytes(6).toString('hex');
  /** What the log has already named (an entry set aside, an inbox that cannot be read). */
  private readonly logged = new Set<string>();
  /** Fetch claims: in the process, like the limiters (one service per data dir). */
  private readonly fetchClaims = new LocalClaims();
  private readonly cursors: CursorFile;

  constructor(
    readonly dataDir: string,
    options: FileStoreOptions = {},
  ) {
    this.sessionsDir = join(dataDir, 'sessions');
    this.messagesDir = join(dataDir, 'messages');
    this.log = options.log ?? (() => undefined);
    this.commit = new GroupCommit(options.onBatch);
    this.cursors = new CursorFile(dataDir, this.log);
  }

  /** Logs `line` unless something was already logged under `key`. */
  private readonly logOnce = (key: string, line: string): void => {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.log(line);
  };

  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('FileStore.open() called twice');
    await mkdirDurable(this.dataDir, join(this.dataDir, '..'));
    await mkdirDurable(this.sessionsDir, this.dataDir);
    await mkdirDurable(this.messagesDir, this.dataDir);
    for (const session of await loadSessions(this.sessionsDir, this.logOnce)) this.index(session);
    const dirs = await scanMessageDirs(this.messagesDir, (id) => this.sessions.get(id) !== undefined);
    for (const entry of this.sessions.values()) {
      const found = dirs.get(entry.session.id);
      entry.dirReady = found?.kind === 'dir';
      // No directory: nothing to read (the first message makes it). Not a directory: its messages
      // cannot be known, so it takes none until a restart finds it fixed (ids must never repeat).
      entry.loaded = found?.kind !== 'dir';
      if (found?.kind === 'bad') cannotRead(entry, found.error, this.logOnce);
    }
    await this.cursors.load();
    this.state = 'open';
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.fetchClaims.loseAll(this);
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

  /** The entry of `sessionId` with its messages read from disk (the first use reads them; once). */
  private async inbox(sessionId: string): Promise<InboxEntry | undefined> {
    this.check();
    const entry = this.sessions.get(sessionId);
    if (entry && !entry.loaded) await loadInbox(entry, this.logOnce);
    return entry;
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
      const entry = this.index(copy);
      entry.dirReady = true;
      // A session new to this store has no messages on disk to read.
      if (!known) entry.loaded = true;
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
      await this.drop([entry]);
      await removeInboxDirs([entry], this.log);
      return true;
    });
  }

  purgeExpired(now: number): Promise<number> {
    return this.track(async () => {
      const gone = await this.drop([...this.sessions.values()].filter((e) => e.session.expiresAt <= now));
      // Unreachable now; removed in the background, so a backlog of expired mail never holds up a start.
      if (gone.length > 0) void this.track(() => removeInboxDirs(gone, this.log)).catch(() => undefined);
      return gone.length;
    });
  }

  /**
   * Deletes the records of `entries` (all at once, one fsync of their directory) and forgets them: from
   * then on the sessions are gone. Their message directories are the caller's to remove; a crash before
   * that leaves orphans that open() removes. Rejects with the first failure, the others being gone.
   */
  private async drop(entries: InboxEntry[]): Promise<InboxEntry[]> {
    if (entries.length === 0) return [];
    const unlinked = await Promise.allSettled(
      entries.map((e) =>
        unlink(join(this.sessionsDir, `${e.session.id}.json`)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        }),
      ),
    );
    await fsyncDir(this.sessionsDir);
    const gone = entries.filter((e, i) => unlinked[i]!.status === 'fulfilled' && this.sessions.get(e.session.id) === e);
    for (const e of gone) {
      this.sessions.remove(e);
      e.removed = true;
    }
    const failed = unlinked.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return gone;
  }

  addMessage(sessionId: string, input: NewMessage): Promise<StoredMessageMeta> {
    return this.track(async () => {
      const entry = await this.inbox(sessionId);
      if (!entry) throw new UnknownSessionError();
      if (entry.loadError) throw entry.loadError;
      entry.adding++;
      return writeMessage(entry, input, this.messagesDir, this.commit).finally(() => entry.adding--);
    });
  }

  deliver(sessionIds: readonly string[], input: NewMessage, inboxLimit: number): Promise<Delivery> {
    return this.track(async () => {
      const wanted = [...new Set(sessionIds)];
      await Promise.all(wanted.map((id) => this.inbox(id)));
      const entries: InboxEntry[] = [];
      const gone: string[] = [];
      for (const id of wanted) {
        const entry = this.sessions.get(id);
        if (!entry) gone.push(id);
        else if (entry.loadError) throw entry.loadError;
        else entries.push(entry);
      }
      return { ...(await appendToAll(entries, input, inboxLimit, this.messagesDir, this.commit, this.log)), gone };
    });
  }

  async listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    return listInbox(await this.inbox(sessionId));
  }

  async countMessages(sessionId: string): Promise<number> {
    return (await this.inbox(sessionId))?.messages.size ?? 0;
  }

  async inboxVersion(sessionId: string): Promise<string | undefined> {
    this.check();
    const entry = this.sessions.get(sessionId);
    return entry && `${this.epoch}.${entry.version}`;
  }

  private async section(sessionId: string, id: number, index: number): Promise<Buffer | undefined> {
    return readSection(await this.inbox(sessionId), id, index);
  }

  async getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    const layout = (await this.inbox(sessionId))?.messages.get(id);
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
    return this.track(async () => removeMessage(await this.inbox(sessionId), id));
  }

  async hitCreateLimit(key: string, now: number, rule: RateRule): Promise<number> {
    this.check();
    return this.limiters.hit(key, now, rule);
  }

  async getFetchCursor(account: string, folder: string): Promise<FetchCursor | undefined> {
    this.check();
    return this.cursors.get(account, folder);
  }

  putFetchCursor(account: string, folder: string, cursor: FetchCursor): Promise<void> {
    return this.track(() => this.cursors.put(account, folder, cursor));
  }

  async claimFetch(account: string): Promise<FetchClaim | undefined> {
    this.check();
    return this.fetchClaims.claim(account, this);
  }

  async getFetchStatus(account: string): Promise<FetchStatus | undefined> {
    this.check();
    return this.cursors.status(account);
  }

  putFetchStatus(account: string, status: FetchStatus): Promise<void> {
    return this.track(() => this.cursors.putStatus(account, status));
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
