/**
 * The storage contract of the reference service (inbucket-style: one interface, one shared test suite in
 * test/server/store/store-suite.ts that every implementation passes). The mail service is the only user; the
 * protocol front ends never touch a Store.
 *
 * A Store keeps data as given: it does not validate addresses, check expiry or sanitize text. Every
 * write resolves only once it is durable (for the file store: on disk and fsync'd), and every failure
 * (EROFS, ENOSPC, EACCES, ENOTDIR...) surfaces as a rejection carrying the Node error.
 */

export interface StoredSession {
  /** Random opaque id (hex); names the session's storage. */
  id: string;
  /** sha256 of the token, hex. The token itself is never stored. */
  tokenHash: string;
  /** The address as handed out, e.g. "quiet-otter-4821@tempmail.test" or "j.ohn+otter-12@gmail.com". */
  email: string;
  /** Routing key that an incoming RCPT address is reduced to (see addresses.ts); unique among sessions. */
  addressKey: string;
  localPart: string;
  domain: string;
  kind: 'domain' | 'extmail';
  /** 1-based id of the external-mail account, for kind 'extmail'. */
  extmailAccountId: number | null;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  expiresAt: number;
}

export interface StoredAttachmentMeta {
  /** 1-based index within its message. */
  id: number;
  filename: string;
  contentType: string;
  size: number;
}

/** What a listing needs; kept in the in-memory index of the file store. */
export interface StoredMessageMeta {
  /** Per-session id: starts at 1, increases, never reused within a session (not even after a restart). */
  id: number;
  senderName: string;
  senderEmail: string;
  subject: string;
  /** Epoch ms. */
  receivedAt: number;
  /** Size of the raw message in bytes. */
  size: number;
  attachments: StoredAttachmentMeta[];
}

/** The parsed body: read on demand, not kept in memory. */
export interface StoredMessageBody {
  to: string[];
  cc: string[];
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
}

export type StoredMessage = StoredMessageMeta & StoredMessageBody;

/** What addMessage takes: everything but the id (assigned by the store) and the derived sizes. */
export interface NewMessage extends StoredMessageBody {
  senderName: string;
  senderEmail: string;
  subject: string;
  receivedAt: number;
  /** The message exactly as received. */
  raw: Buffer;
  attachments: { filename: string; contentType: string; bytes: Buffer }[];
}

export interface Store {
  /** Prepares the store (creates directories, loads the index, cleans crash leftovers). Call once. */
  open(): Promise<void>;
  /** Waits for writes in flight, then refuses further calls. Idempotent. */
  close(): Promise<void>;

  /** Creates or replaces a session; resolves when durable. */
  putSession(session: StoredSession): Promise<void>;
  getSession(id: string): Promise<StoredSession | undefined>;
  getSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined>;
  /** The session holding this routing key (the newest one if, after a takeover, two ever did). */
  findSessionByAddress(addressKey: string): Promise<StoredSession | undefined>;
  listSessions(): Promise<StoredSession[]>;
  countSessions(): Promise<number>;
  /** Removes a session and all its messages; false when it was not there. */
  deleteSession(id: string): Promise<boolean>;

  /** Stores a message for a session; resolves with its id only once it is durable. Rejects for an unknown session. */
  addMessage(sessionId: string, message: NewMessage): Promise<StoredMessageMeta>;
  /** Summaries in increasing id order (oldest first). */
  listMessages(sessionId: string): Promise<StoredMessageMeta[]>;
  getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined>;
  countMessages(sessionId: string): Promise<number>;
  /** False when it was not there. */
  deleteMessage(sessionId: string, id: number): Promise<boolean>;
  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined>;
  attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined>;
}

/** The error a store rejects with when used after close(). */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  readonly code = 'ESTORECLOSED';
  constructor() {
    super('store is closed');
  }
}

/** The error a store rejects with when a message is added to a session it does not hold. */
export class UnknownSessionError extends Error {
  override readonly name = 'UnknownSessionError';
  readonly code = 'ENOSESSION';
  constructor() {
    super('no such session');
  }
}

/** "ENOTDIR: not a directory" from a Node error, without the path. */
export function storageErrorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = typeof e?.message === 'string' ? e.message.split(',')[0] ?? '' : String(err);
  return e?.code && !message.startsWith(e.code) ? `${e.code}: ${message}` : message;
}
