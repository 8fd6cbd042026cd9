/**
 * The contract between the mail service (src/server/mail-service.ts) and the two protocol front ends
 * (HTTP routes, SMTP intake). The front ends depend only on this; the service depends only on a Store.
 */

export type ServiceErrorCode =
  | 'bad_request'
  | 'invalid_token'
  | 'not_found'
  | 'prefix_taken'
  | 'session_expired'
  | 'too_large'
  | 'rate_limited'
  | 'storage_unavailable'
  | 'internal';

const STATUS: Record<ServiceErrorCode, number> = {
  bad_request: 400,
  invalid_token: 401,
  not_found: 404,
  prefix_taken: 409,
  session_expired: 410,
  too_large: 413,
  rate_limited: 429,
  storage_unavailable: 503,
  internal: 500,
};

/** An error the service answers with: `{status:"error", error: code, message}` and `status` over HTTP. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly status: number;
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export interface CreateSessionInput {
  prefix?: string;
  domainId?: number;
  useExtmail?: boolean;
  extmailAuto?: boolean;
  extmailId?: number;
  /** Remote address, for the per-client rate limit. */
  clientAddress: string;
}

export interface CreatedSession {
  email: string;
  token: string;
  expiresAt: Date;
}

export interface AttachmentMeta {
  id: number;
  filename: string;
  contentType: string;
  size: number;
}

export interface MessageMeta {
  id: number;
  senderName: string;
  senderEmail: string;
  subject: string;
  receivedAt: Date;
  /** The message has at least one attachment (the listing's has_attachments extension). */
  hasAttachments: boolean;
}

export interface MessageFull extends MessageMeta {
  to: string[];
  cc: string[];
  text: string | null;
  html: string | null;
  /** Selected headers as lines, e.g. ["Date: ...", "Message-ID: ..."]. */
  headers: Record<string, string>;
  attachments: AttachmentMeta[];
}

/** Answer to an SMTP RCPT TO. */
export type RecipientVerdict = 'ok' | 'unknown' | 'expired' | 'full';

/** What deliver did: how many inboxes took the message, or which recipients' inboxes were full. */
export interface DeliverOutcome {
  delivered: number;
  /**
   * Recipients (as given) whose inbox was full when the message was to be stored; present only then,
   * and then nothing was stored for anyone (SMTP answers 452 4.2.2 and the sender retries).
   */
  full?: string[];
}

export interface ServiceHealth {
  ok: boolean;
  storage: 'ok' | 'failing';
  /** Why storage is failing, e.g. "EROFS: read-only file system". */
  detail?: string;
  sessions: number;
}

export interface MailService {
  listDomains(): { domains: { id: number; domain: string }[]; extmailAccounts: { id: number; email: string }[] };
  createSession(input: CreateSessionInput): Promise<CreatedSession>;
  checkMail(token: string): Promise<MessageMeta[]>;
  readMail(token: string, id: number): Promise<MessageFull>;
  deleteMail(token: string, id: number): Promise<void>;
  rawMessage(token: string, id: number): Promise<Buffer>;
  attachment(token: string, id: number, attachmentId: number): Promise<{ meta: AttachmentMeta; bytes: Buffer }>;

  /** SMTP RCPT TO: may this address receive mail now? */
  checkRecipient(address: string): Promise<RecipientVerdict>;
  /**
   * Stores one message for every live recipient, while each of their inboxes is under the limit (else
   * for none: `full`). Resolves only when it is durably stored (the SMTP side answers 250 after this).
   * Rejects with ServiceError('storage_unavailable') when it can't.
   */
  deliver(input: { raw: Buffer; recipients: string[]; envelopeFrom?: string }): Promise<DeliverOutcome>;

  /**
   * Calls `onMail` each time this process stores a message for the session of `token` (after it is
   * durable, before the SMTP side answers 250), until the returned function is called. In-process only:
   * mail another instance on the same database stores is not seen here (the app's in-process service
   * uses it to show mail at once; clients over HTTP poll). No lookup: an unknown token is never called.
   */
  watchInbox(token: string, onMail: () => void): () => void;

  /** Storage state and session count; asks the storage itself where the store can (Postgres). */
  health(): Promise<ServiceHealth>;
  /** Removes expired sessions and their messages; returns how many sessions went. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}
