/**
 * The sessions half of the file store (FileStore, file-store.ts, adds the inboxes): its lifecycle, the
 * session records and their in-memory index, the address claims, the create-session rate, the expiry
 * sweep and the fetch state of external accounts.
 *
 *   DATA/sessions/<sessionId>.json      one session record (written durably: durable-fs.ts)
 *   DATA/messages/<sessionId>/          its inbox (file-inbox.ts), looked at here only to exist or not
 *
 * open() reads the session records and one directory entry per session, and removes message
 * directories whose session is gone: opening does not grow with the messages stored.
 */
import { statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable, unlinkAllDurable, writeFileDurable } from './durable-fs';
import { markInboxDir, newInbox, removeInboxDirs, type InboxEntry } from './file-inbox';
import { loadSessions, scanMessageDirs, SESSION_ID } from './file-store-load';
import type { BatchReport } from './group-commit';
import { SessionIndex } from './session-index';
import { CursorFile } from './cursor-file';
import { BlockFile } from './block-file';
import { LimitersByRule } from '../../limits/rate-limit';
import { LocalClaims } from '../local-claims';
import {
  StoreClosedError,
  type Block,
  type BlockKind,
  type FetchClaim,
  type FetchCursor,
  type FetchStatus,
  type RateRule,
  type StoredSession,
} from '../store';

/** The file probe() writes and removes in messages/ (a leftover is removed at open: it is no session). */
const PROBE_FILE = '.health-probe';
/**
 * Less free space than this, and the data dir is reported full: a small message would not fit. (A big one
 * may fail where this passes: each failed write marks the storage failing again; --max-stored-bytes keeps
 * a margin.)
 */
const PROBE_FREE_BYTES = 64 * 1024;

export interface FileStoreOptions {
  /** One line per oddity found (corrupt file set aside, unreadable inbox): each entry is named once. */
  log?: (line: string) => void;
  /** Called after each group commit of message files (tests count batches and directory fsyncs). */
  onBatch?: (report: BatchReport) => void;
}

/** Sessions, records and fetch state of a file store; FileStore adds the messages. */
export abstract class FileSessions {
  protected readonly sessionsDir: string;
  protected readonly messagesDir: string;
  protected readonly sessions = new SessionIndex<InboxEntry>();
  private readonly pending = new Set<Promise<unknown>>();
  private state: 'new' | 'open' | 'closed' = 'new';
  protected readonly log: (line: string) => void;
  /** The last insertSession of each address key still running: one claim of an address at a time. */
  private readonly claims = new Map<string, Promise<unknown>>();
  /** Create-session hits, in memory: one service runs per data dir (service.lock), and a restart forgets them. */
  private readonly limiters = new LimitersByRule();
  /** What the log has already named (an entry set aside, an inbox that cannot be read). */
  private readonly logged = new Set<string>();
  /** Fetch claims: in the process, like the limiters (one service per data dir). */
  private readonly fetchClaims = new LocalClaims();
  private readonly cursors: CursorFile;
  private readonly blocks: BlockFile;

  constructor(
    readonly dataDir: string,
    options: FileStoreOptions = {},
  ) {
    this.sessionsDir = join(dataDir, 'sessions');
    this.messagesDir = join(dataDir, 'messages');
    this.log = options.log ?? (() => undefined);
    this.cursors = new CursorFile(dataDir, this.log);
    this.blocks = new BlockFile(dataDir, this.log);
  }

  /** Logs `line` unless something was already logged under `key`. */
  protected readonly logOnce = (key: string, line: string): void => {
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
    for (const entry of this.sessions.values()) markInboxDir(entry, dirs.get(entry.session.id), this.logOnce);
    await this.cursors.load();
    await this.blocks.load();
    this.state = 'open';
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.fetchClaims.loseAll(this);
    await Promise.allSettled([...this.pending]);
  }

  /** Runs a write while counting it in flight, so close() can wait for it. */
  protected track<T>(work: () => Promise<T>): Promise<T> {
    if (this.state !== 'open') return Promise.reject(new StoreClosedError());
    const p = work();
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  protected check(): void {
    if (this.state !== 'open') throw new StoreClosedError();
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
    const unlinked = await unlinkAllDurable(
      this.sessionsDir,
      entries.map((e) => `${e.session.id}.json`),
    );
    const gone = entries.filter((e, i) => unlinked[i]!.status === 'fulfilled' && this.sessions.get(e.session.id) === e);
    for (const e of gone) {
      this.sessions.remove(e);
      e.removed = true;
    }
    const failed = unlinked.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return gone;
  }

  async hitRateLimit(key: string, now: number, rule: RateRule, cost = 1): Promise<number> {
    this.check();
    return this.limiters.hit(key, now, rule, cost);
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

  /**
   * Whether the data dir takes a message now: at least PROBE_FREE_BYTES free on its file system, and a
   * small file written durably (then removed) where messages go. /health asks this at most once a second, and while
   * storage is failing it is how the service learns the disk is back (EROFS remounted rw, space freed).
   */
  async probe(): Promise<boolean> {
    this.check();
    return this.track(async () => {
      const fs = await statfs(this.dataDir);
      const free = fs.bavail * fs.bsize;
      if (free < PROBE_FREE_BYTES) {
        throw Object.assign(new Error(`ENOSPC: no space left on device (${free} bytes free)`), { code: 'ENOSPC' });
      }
      // Where messages are written: a messages/ that broke (a file in its place, its own mount gone read-only) shows.
      await writeFileDurable(this.messagesDir, PROBE_FILE, [Buffer.from(`${process.pid}\n`)]);
      await unlink(join(this.messagesDir, PROBE_FILE)).catch(() => undefined);
      return true;
    });
  }

  async listBlocks(): Promise<Block[]> {
    this.check();
    return this.blocks.list();
  }

  putBlock(block: Block): Promise<boolean> {
    return this.track(() => this.blocks.put(block));
  }

  deleteBlock(kind: BlockKind, value: string): Promise<boolean> {
    return this.track(() => this.blocks.delete(kind, value));
  }
}
