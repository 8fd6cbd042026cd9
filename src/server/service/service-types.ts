/**
 * The contract between the mail service (src/server/service/mail-service.ts) and the protocol front ends
 * (HTTP routes, SMTP intake, IMAP intake). The front ends depend only on this; the service depends only
 * on a Store.
 */
import type { FetchClaim, FetchCursor, FetchStatus } from '../store/store';

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

declare const mailboxBrand: unique symbol;
/** The mailbox an RCPT TO was accepted for: given back to deliver as it came, opaque to the front ends. */
export type Mailbox = { readonly [mailboxBrand]: true };

/** What MailService.recipient found: the verdict, and with 'ok' the mailbox DATA stores into. */
export interface RecipientCheck {
  verdict: RecipientVerdict;
  mailbox?: Mailbox;
}

/** What deliver did: how many inboxes took the message, or which recipients' inboxes were full. */
export interface DeliverOutcome {
  delivered: number;
  /**
   * Recipients (as given) whose inbox was full when the message was to be stored; present only then,
   * and then nothing was stored for anyone (SMTP answers 452 4.2.2 and the sender retries).
   */
  full?: string[];
  /** The copies would have passed the storage cap (Store.deliver): nothing was stored (SMTP: 452 4.3.1). */
  capped?: true;
}

/** An inbox as check-mail sees it: its listing's version now, and the listing when asked for. */
export interface InboxView {
  /** Names the inbox for a cache within this process (never the token, never shown). */
  key: string;
  /** Changes whenever the listing changes, in every service sharing the store (Store.inboxVersion). */
  version: string;
  /** The listing, newest first, read from the store now (it may be newer than `version`, never older). */
  list(): Promise<MessageMeta[]>;
}

/** What deliverFetched did with one message fetched from an external account. */
export interface FetchedOutcome {
  /** Aliases whose inbox took the message. */
  stored: string[];
  /** Aliases whose inbox already held these very bytes (stored before a crash, its cursor not yet saved). */
  held: string[];
  /** Aliases whose inbox was full: nothing was stored for anyone (as SMTP's 452). */
  full: string[];
}

/** The part of the service the IMAP intake (src/server/imap/) uses, beside deliver's parse and store path. */
export interface ExternalIntake {
  /**
   * The addresses among `addresses` that are aliases of external account `accountId` held by a live
   * session, one per session. Only the first maxRecipients distinct aliases are looked up, as SMTP takes
   * at most that many recipients per message; `unchecked` counts the aliases left out.
   */
  liveAliases(accountId: number, addresses: readonly string[]): Promise<{ aliases: string[]; unchecked: number }>;
  /**
   * Stores a message fetched from external account `accountId` for the live sessions of `aliases`
   * exactly as deliver() stores one that came by SMTP (same parse, same store operation, same inbox
   * limit). With `skipHeld`, a session already holding a message of these very bytes is skipped.
   */
  deliverFetched(input: {
    accountId: number;
    raw: Buffer;
    aliases: readonly string[];
    skipHeld: boolean;
  }): Promise<FetchedOutcome>;
  fetchCursor(account: string, folder: string): Promise<FetchCursor | undefined>;
  saveFetchCursor(account: string, folder: string, cursor: FetchCursor): Promise<void>;
  claimFetch(account: string): Promise<FetchClaim | undefined>;
  /** The status the fetching service last reported for `account` (read by those standing by). */
  fetchStatus(account: string): Promise<FetchStatus | undefined>;
  reportFetchStatus(account: string, status: FetchStatus): Promise<void>;
}

export interface ServiceHealth {
  ok: boolean;
  storage: 'ok' | 'failing';
  /** Why storage is failing, e.g. "EROFS: read-only file system" (the log's; never in an answer). */
  detail?: string;
  sessions: number;
}

export interface MailService extends ExternalIntake {
  /** Every domain, and the external accounts that are active now (see MailServiceDeps.accountActive). */
  listDomains(): { domains: { id: number; domain: string }[]; extmailAccounts: { id: number; email: string }[] };
  createSession(input: CreateSessionInput): Promise<CreatedSession>;
  checkMail(token: string): Promise<MessageMeta[]>;
  /** The live session of a token (errors as checkMail): what GET /events needs to hold a stream for it. */
  describeSession(token: string): Promise<{ id: string; email: string; expiresAt: Date }>;
  /** The inbox of a token, for an answer cached per version of its listing (errors as checkMail). */
  inbox(token: string): Promise<InboxView>;
  readMail(token: string, id: number): Promise<MessageFull>;
  deleteMail(token: string, id: number): Promise<void>;
  rawMessage(token: string, id: number): Promise<Buffer>;
  attachment(token: string, id: number, attachmentId: number): Promise<{ meta: AttachmentMeta; bytes: Buffer }>;

  /** SMTP RCPT TO: may this address receive mail now, and into which mailbox (one store read)? */
  recipient(address: string): Promise<RecipientCheck>;
  /** recipient()'s verdict alone. */
  checkRecipient(address: string): Promise<RecipientVerdict>;
  /**
   * Stores one message for every live recipient, while each of their inboxes is under the limit (else
   * for none: `full`). Resolves only when it is durably stored (the SMTP side answers 250 after this).
   * Rejects with ServiceError('storage_unavailable') when it can't. `mailboxes[i]`, when given, is what
   * recipient() accepted for `recipients[i]`: the message goes there (if still live) without a lookup.
   */
  deliver(input: {
    raw: Buffer;
    recipients: string[];
    envelopeFrom?: string;
    mailboxes?: readonly (Mailbox | undefined)[];
    /** The SMTP client's address, kept with the message (and the envelope sender) for the admin API. */
    clientIp?: string;
  }): Promise<DeliverOutcome>;

  /**
   * An SMTP client has begun sending a message's body (DATA): deliver() will follow. The store may hold
   * its next batch a moment for it (Store.deliveryComing). Call the returned function once the body has
   * arrived, whatever becomes of the message; a second call does nothing.
   */
  deliveryComing(): () => void;

  /**
   * Calls `onMail` each time a message is stored for the session of `token`, until the returned function
   * is called: at once when this process stored it (after it is durable, before the SMTP side answers
   * 250), and, on a store shared by several services (Postgres), when another one did (the store's mail
   * notices). After the notices were interrupted (a lost database connection), every watcher is called
   * once, as mail may have come meanwhile. No lookup: an unknown token is never called. `onGone` is
   * called when the session is deleted through the admin API of any service on a shared store.
   */
  watchInbox(token: string, onMail: () => void, onGone?: () => void): () => void;

  /**
   * Storage state (with the reason, for the log and tests: never for a client) and session count; asks
   * the storage itself when it was not asked in the last second.
   */
  health(): Promise<ServiceHealth>;
  /** Whether the storage serves, asked at most once a second (GET /health, GET /ready). */
  storageServes(): Promise<boolean>;
  /** Removes expired sessions and their messages; returns how many sessions went. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}
