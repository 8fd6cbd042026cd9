/**
 * An in-memory Store for fast service tests. It passes the same suite as the file store; a `MemoryData`
 * passed to a second instance plays the part of the disk, so "reopen" can be tested too, and two open
 * instances on one MemoryData share it as two services share one database.
 *
 * Every operation runs without an await between its check and its change, so each is atomic in one
 * process without a lock.
 */
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
}

/** The "disk" of a MemoryStore: share it between instances to simulate a restart. */
export interface MemoryData {
  sessions: Map<string, MemorySession>;
  /** Create-session hits. */
  limiters: LimitersByRule;
}

/** A fresh, empty MemoryData. */
export function createMemoryData(): MemoryData {
  return { sessions: new Map(), limiters: new LimitersByRule() };
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

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  async putSession(session: StoredSession): Promise<void> {
    const existing = this.entry(session.id);
    if (existing) existing.session = copy(session);
    else this.live().sessions.set(session.id, { session: copy(session), messages: new Map(), lastId: 0 });
  }

  async insertSession(session: StoredSession, now: number): Promise<'created' | 'taken'> {
    const sessions = this.live().sessions;
    const holders = [...sessions.values()].filter((e) => e.session.addressKey === session.addressKey);
    if (holders.some((e) => e.session.expiresAt > now)) return 'taken';
    for (const e of holders) sessions.delete(e.session.id);
    sessions.set(session.id, { session: copy(session), messages: new Map(), lastId: 0 });
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
    if (full.length === 0) for (const [id, e] of entries) stored.set(id, append(e, input));
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
    return this.entry(sessionId)?.messages.delete(id) ?? false;
  }

  async rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    const m = this.entry(sessionId)?.messages.get(id);
    return m && Buffer.from(m.raw);
  }

  async attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    const bytes = this.entry(sessionId)?.messages.get(id)?.attachments[attachmentId - 1];
    return bytes && Buffer.from(bytes);
  }

  async hitCreateLimit(key: string, now: number, rule: RateRule): Promise<number> {
    return this.live().limiters.hit(key, now, rule);
  }

  async probe(): Promise<boolean> {
    this.live();
    return false;
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
