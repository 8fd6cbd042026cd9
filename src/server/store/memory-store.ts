/**
 * An in-memory Store for fast service tests. It passes the same suite as the file store; a `MemoryData`
 * passed to a second instance plays the part of the disk, so "reopen" can be tested too, and two open
 * instances on one MemoryData share it as two services share one database.
 *
 * Every operation runs without an await between its check and its change, so each is atomic in one
 * process without a lock.
 */
import { LimitersByRule } from '../limits/rate-limit';
import { LocalClaims } from './local-claims';
import {
  StoreClosedError,
  type FetchClaim,
  type FetchCursor,
  type FetchStatus,
  UnknownSessionError,
  type Delivery,
  type NewMessage,
  type RateRule,
  type RecipientInbox,
  type SessionInbox,
  type StorageUsage,
  type Store,
  type StoredMessage,
  type StoredMessageMeta,
  type StoredSession,
} from './store';

interface MemoryMessage {
  message: StoredMessage;
  raw: Buffer;
  attachments: Buffer[];
}

interface MemorySession {
  session: StoredSession;
  messages: Map<number, MemoryMessage>;
  lastId: number;
  /** Its inbox version: the data's change count when its listing last changed. */
  version: number;
}

/** The "disk" of a MemoryStore: share it between instances to simulate a restart. */
export interface MemoryData {
  sessions: Map<string, MemorySession>;
  /** Create-session hits. */
  limiters: LimitersByRule;
  /** Changes to any listing so far: each new inbox version is the next count, never seen before. */
  changes: number;
  /** Fetch cursors of external accounts, by account and folder (`account\nfolder`). */
  cursors: Map<string, FetchCursor>;
  /** Fetch claims of the instances open on this data. */
  claims: LocalClaims;
  /** Fetch statuses of external accounts. */
  statuses: Map<string, FetchStatus>;
}

/** A fresh, empty MemoryData. */
export function createMemoryData(): MemoryData {
  return {
    sessions: new Map(),
    limiters: new LimitersByRule(),
    changes: 0,
    cursors: new Map(),
    claims: new LocalClaims(),
    statuses: new Map(),
  };
}

/** Copies on the way in and out, so callers can never alias what the store holds (as with a disk). */
function copy<T>(value: T): T {
  return structuredClone(value);
}

/** The in-memory Store. */
export class MemoryStore implements Store {
  private opened = false;
  private closed = false;

  constructor(private readonly data: MemoryData = createMemoryData()) {}

  private live(): MemoryData {
    if (this.closed || !this.opened) throw new StoreClosedError();
    return this.data;
  }

  private entry(sessionId: string): MemorySession | undefined {
    return this.live().sessions.get(sessionId);
  }

  /** A new entry, with an empty inbox. */
  private fresh(session: StoredSession): MemorySession {
    return { session: copy(session), messages: new Map(), lastId: 0, version: ++this.live().changes };
  }

  /** Marks `e`'s listing changed. */
  private changed(e: MemorySession): void {
    e.version = ++this.live().changes;
  }

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.data.claims.loseAll(this);
  }

  async putSession(session: StoredSession): Promise<void> {
    const existing = this.entry(session.id);
    if (existing) existing.session = copy(session);
    else this.live().sessions.set(session.id, this.fresh(session));
  }

  async insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'> {
    const sessions = this.live().sessions;
    const holders = [...sessions.values()].filter((e) => e.session.addressKey === session.addressKey);
    if (holders.some((e) => e.session.expiresAt > now)) return 'taken';
    for (const e of holders) sessions.delete(e.session.id);
    sessions.set(session.id, this.fresh(session));
    return 'created';
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    const e = this.entry(id);
    return e && copy(e.session);
  }

  async getSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    for (const e of this.live().sessions.values()) if (e.session.tokenHash === tokenHash) return copy(e.session);
    return undefined;
  }

  async findSessionByAddress(addressKey: string): Promise<StoredSession | undefined> {
    let best: StoredSession | undefined;
    for (const e of this.live().sessions.values()) {
      if (e.session.addressKey === addressKey && (!best || e.session.createdAt >= best.createdAt)) best = e.session;
    }
    return best && copy(best);
  }

  async listSessions(): Promise<StoredSession[]> {
    return [...this.live().sessions.values()].map((e) => copy(e.session));
  }

  async countSessions(): Promise<number> {
    return this.live().sessions.size;
  }

  async deleteSession(id: string): Promise<boolean> {
    return this.live().sessions.delete(id);
  }

  async purgeExpired(now: number): Promise<number> {
    const sessions = this.live().sessions;
    let removed = 0;
    for (const [id, e] of sessions) if (e.session.expiresAt <= now && sessions.delete(id)) removed++;
    return removed;
  }

  async addMessage(sessionId: string, input: NewMessage): Promise<StoredMessageMeta> {
    const e = this.entry(sessionId);
    if (!e) throw new UnknownSessionError();
    this.changed(e);
    return append(e, input);
  }

  async deliver(sessionIds: readonly string[], input: NewMessage, inboxLimit: number): Promise<Delivery> {
    const entries = new Map<string, MemorySession>();
    const gone: string[] = [];
    for (const id of new Set(sessionIds)) {
      const e = this.entry(id);
      if (e) entries.set(id, e);
      else gone.push(id);
    }
    const full = [...entries].filter(([, e]) => e.messages.size >= inboxLimit).map(([id]) => id);
    const stored = new Map<string, StoredMessageMeta>();
    if (full.length > 0) return { stored, full, gone };
    for (const [id, e] of entries) {
      this.changed(e);
      stored.set(id, append(e, input));
    }
    return { stored, full, gone };
  }

  async listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    const e = this.entry(sessionId);
    if (!e) return [];
    return [...e.messages.values()].map((m) => metaOf(m.message)).sort((a, b) => a.id - b.id);
  }

  async getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    const m = this.entry(sessionId)?.messages.get(id);
    return m && copy(m.message);
  }

  async countMessages(sessionId: string): Promise<number> {
    return this.entry(sessionId)?.messages.size ?? 0;
  }

  async deleteMessage(sessionId: string, id: number): Promise<boolean> {
    const e = this.entry(sessionId);
    if (!e?.messages.delete(id)) return false;
    this.changed(e);
    return true;
  }

  async inboxVersion(sessionId: string): Promise<string | undefined> {
    const e = this.entry(sessionId);
    return e && String(e.version);
  }

  async recipientInbox(addressKey: string): Promise<RecipientInbox | undefined> {
    const session = await this.findSessionByAddress(addressKey);
    return session && { session, messages: await this.countMessages(session.id) };
  }

  async inboxByTokenHash(tokenHash: string): Promise<SessionInbox | undefined> {
    const session = await this.getSessionByTokenHash(tokenHash);
    const version = session && (await this.inboxVersion(session.id));
    return session && version !== undefined ? { session, version } : undefined;
  }

  async rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    const m = this.entry(sessionId)?.messages.get(id);
    return m && Buffer.from(m.raw);
  }

  async attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    const bytes = this.entry(sessionId)?.messages.get(id)?.attachments[attachmentId - 1];
    return bytes && Buffer.from(bytes);
  }

  async hitRateLimit(key: string, now: number, rule: RateRule, cost = 1): Promise<number> {
    return this.live().limiters.hit(key, now, rule, cost);
  }

  async getFetchCursor(account: string, folder: string): Promise<FetchCursor | undefined> {
    const cursor = this.live().cursors.get(`${account}\n${folder}`);
    return cursor && { ...cursor };
  }

  async putFetchCursor(account: string, folder: string, cursor: FetchCursor): Promise<void> {
    const { uidValidity, lastUid, renumberedAt } = cursor;
    this.live().cursors.set(`${account}\n${folder}`, renumberedAt === undefined ? { uidValidity, lastUid } : { uidValidity, lastUid, renumberedAt });
  }

  async claimFetch(account: string): Promise<FetchClaim | undefined> {
    return this.live().claims.claim(account, this);
  }

  async getFetchStatus(account: string): Promise<FetchStatus | undefined> {
    const status = this.live().statuses.get(account);
    return status && { ...status };
  }

  async putFetchStatus(account: string, status: FetchStatus): Promise<void> {
    this.live().statuses.set(account, { active: status.active, reason: status.reason, at: status.at });
  }

  async probe(): Promise<boolean> {
    this.live();
    return false;
  }

  async usage(): Promise<StorageUsage> {
    let messages = 0;
    let bytes = 0;
    for (const e of this.live().sessions.values()) {
      for (const m of e.messages.values()) {
        messages++;
        bytes += m.raw.length;
      }
    }
    return { messages, bytes };
  }
}

/** Appends a message to a session's inbox under the next id. */
function append(e: MemorySession, input: NewMessage): StoredMessageMeta {
  const id = ++e.lastId;
  const { raw, attachments, ...rest } = input;
  const message: StoredMessage = {
    ...copy(rest),
    id,
    size: raw.length,
    attachments: attachments.map((a, i) => ({
      id: i + 1,
      filename: a.filename,
      contentType: a.contentType,
      size: a.bytes.length,
    })),
  };
  e.messages.set(id, { message, raw: Buffer.from(raw), attachments: attachments.map((a) => Buffer.from(a.bytes)) });
  return metaOf(message);
}

/** The listing part of a stored message. */
export function metaOf(m: StoredMessage): StoredMessageMeta {
  return {
    id: m.id,
    senderName: m.senderName,
    senderEmail: m.senderEmail,
    subject: m.subject,
    receivedAt: m.receivedAt,
    size: m.size,
    attachments: m.attachments.map((a) => ({ ...a })),
  };
}
