/**
 * An in-memory Store for fast service tests. It passes the same suite as the file store; a `MemoryData`
 * passed to a second instance plays the part of the disk, so "reopen" can be tested too, and two open
 * instances on one MemoryData share it as two services share one database.
 *
 * Every operation runs without an await between its check and its change, so each is atomic in one
 * process without a lock.
 */
import { append, copy, createMemoryData, metaOf, type MemoryData, type MemorySession } from './memory-data';
import { messageFilter } from '../mail/match';
import {
  StoreClosedError,
  type Block,
  type BlockKind,
  type FoundMessage,
  type MessageFilter,
  type FetchClaim,
  type FetchCursor,
  type FetchStatus,
  joinedReads,
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

export { createMemoryData, type MemoryData } from './memory-data';

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

  recipientInbox(addressKey: string): Promise<RecipientInbox | undefined> {
    return joinedReads.recipientInbox(this, addressKey);
  }

  inboxByTokenHash(tokenHash: string): Promise<SessionInbox | undefined> {
    return joinedReads.inboxByTokenHash(this, tokenHash);
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
    this.live().cursors.set(
      `${account}\n${folder}`,
      renumberedAt === undefined ? { uidValidity, lastUid } : { uidValidity, lastUid, renumberedAt },
    );
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

  async findMessages(filter: MessageFilter, limit: number): Promise<FoundMessage[]> {
    const matches = messageFilter(filter);
    const found: FoundMessage[] = [];
    for (const e of this.live().sessions.values()) {
      for (const m of e.messages.values())
        if (matches(m.message)) found.push({ session: copy(e.session), message: metaOf(m.message) });
    }
    return found.sort((a, b) => b.message.receivedAt - a.message.receivedAt).slice(0, limit);
  }

  async listBlocks(): Promise<Block[]> {
    return [...this.live().blocks.values()].map((b) => ({ ...b })).sort((a, b) => a.createdAt - b.createdAt);
  }

  async putBlock(block: Block): Promise<boolean> {
    const blocks = this.live().blocks;
    const key = `${block.kind} ${block.value}`;
    if (blocks.has(key)) return false;
    blocks.set(key, { kind: block.kind, value: block.value, createdAt: block.createdAt });
    return true;
  }

  async deleteBlock(kind: BlockKind, value: string): Promise<boolean> {
    return this.live().blocks.delete(`${kind} ${value}`);
  }
}
