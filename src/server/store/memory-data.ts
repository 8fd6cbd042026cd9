/**
 * What a MemoryStore holds, as the "disk" it plays: sessions with their messages, per-client hits, fetch
 * state and blocks. Instances opened on one MemoryData share it (a restart, or two services on one
 * database). Records are copied on the way in and out, so no caller aliases what is held.
 */
import { LimitersByRule } from '../limits/rate-limit';
import { LocalClaims } from './local-claims';
import type {
  Block,
  FetchCursor,
  FetchStatus,
  NewMessage,
  StoredMessage,
  StoredMessageMeta,
  StoredSession,
} from './store';

export interface MemoryMessage {
  message: StoredMessage;
  raw: Buffer;
  attachments: Buffer[];
}

export interface MemorySession {
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
  /** Blocks, by `kind value`. */
  blocks: Map<string, Block>;
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
    blocks: new Map(),
  };
}

/** Copies on the way in and out, so callers can never alias what the store holds (as with a disk). */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Appends a message to a session's inbox under the next id. */
export function append(e: MemorySession, input: NewMessage): StoredMessageMeta {
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
    ...(m.clientIp !== undefined ? { clientIp: m.clientIp } : {}),
    ...(m.envelopeFrom !== undefined ? { envelopeFrom: m.envelopeFrom } : {}),
  };
}
