/**
 * The client layer's interfaces: `MailProvider`, the one interface the app, the scripting commands and
 * saved sessions talk to (each provider folder implements it: tempmail/ = the temporary-email interface
 * of docs/server/http-api.md, mailtm/, guerrilla/), and `TempMailApi`, the tempmail provider's wire
 * client (the interface's five calls, token in hand).
 */
import type {
  AttachmentInfo,
  CreateSessionOptions,
  DomainList,
  Message,
  MessageId,
  MessageSource,
  PostEncoding,
  ProviderId,
  Session,
} from '../model/mail-types';
import type { HttpStream, RateLimitWait } from './http/http-client';
import type { ListingLimits, MessageList } from './wire/listing';
import type { Pacer } from './pacing/pacer';

// Defined in model/ (the config file reads it too; state/ never imports the client), offered here with the options.
export type { PostEncoding, ProviderId } from '../model/mail-types';

export interface ApiOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8025/ (a path prefix is kept). */
  baseUrl: string;
  postEncoding?: PostEncoding;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Retries for GETs on network errors and 5xx (default 2), never after a timeout. create-session is never retried blindly. */
  retries?: number;
  /** The service's zone for wire times without one, in minutes east of UTC (default 0). */
  serverOffsetMinutes?: number;
  /** First retry delay in ms, doubled per attempt with a little jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Answers larger than this are refused as bad_response (default 64 MiB). */
  maxResponseBytes?: number;
  /** Bounds on one listing as a whole, over every page (default LISTING_LIMITS, listing.ts). */
  listingLimits?: Partial<ListingLimits>;
  /** Spaces request starts (shared with the user's other processes: client/pacing/pacing-file.ts). */
  pacer?: Pacer;
  /** Waits out 429s within these bounds and asks again (the commands and the app); default: a 429 is the caller's. */
  rateLimitWait?: RateLimitWait;
  /**
   * Ends every request of this client, in flight or to come, and every wait before one (a pace, a 429,
   * a retry) once it aborts: the caller is done (a script's command ended, its timeout passed, a try of
   * `--provider auto` ran out of time). A request fails with the signal's reason when that is an ApiError.
   */
  signal?: AbortSignal;
}

/** What every public provider's client takes of ApiOptions (mail.tm, Guerrilla Mail, TempMail.lol). */
export type PublicProviderOptions = Pick<
  ApiOptions,
  | 'baseUrl'
  | 'timeoutMs'
  | 'retries'
  | 'retryBaseDelayMs'
  | 'maxResponseBytes'
  | 'listingLimits'
  | 'pacer'
  | 'rateLimitWait'
>;

/** The tempmail provider's wire client: the interface's calls. All results are terminal-safe project types. */
export interface TempMailApi {
  listDomains(): Promise<DomainList>;
  createSession(options?: CreateSessionOptions): Promise<Session>;
  /**
   * The inbox, newest first. Where the service tags its answer with an ETag, the next check sends it
   * back (If-None-Match) and an unchanged inbox (304) answers the very array of the last answer.
   */
  checkMail(token: string): Promise<MessageList>;
  readMail(token: string, id: number | string): Promise<Message>;
  deleteMail(token: string, id: number | string): Promise<void>;
  /**
   * The bytes of one attachment (reference-service extension: GET /attachment?token&id&attachment_id).
   * A service without that route fails with ApiError('not_found', 'This service does not serve attachment bytes').
   */
  downloadAttachment(token: string, id: number | string, attachmentId: number | string): Promise<Buffer>;
  /**
   * The raw message (reference-service extension: GET /raw-mail?token&id); from a service without that
   * route, every field read-mail returned for the message.
   */
  readSource(token: string, id: number | string): Promise<MessageSource>;
  /**
   * The stream of news of mail for `token`'s inbox (reference-service extension: GET /events, offered in
   * the Tempmail-Capabilities header); undefined from a service that does not offer it.
   */
  openEvents?(token: string): Promise<HttpStream | undefined>;
}

/** What a provider allows, for people (`tempmail-tui providers`, the picker) and for the app's choices. */
export interface ProviderLimits {
  /** How long an address lives, in minutes; null: until deleted (mail.tm), or as its service says (tempmail). */
  lifetimeMinutes: number | null;
  /** The request rate the provider documents, per second; null when it publishes none. */
  requestsPerSecond: number | null;
  /** A custom name (the part before the @) can be asked for. */
  customNames: boolean;
  /** Anyone who types an address can read its inbox (Guerrilla Mail): no secret protects it. */
  publicInbox: boolean;
  /** Message ids are digits (tempmail services, Guerrilla Mail); mail.tm's are hex. */
  numericIds: boolean;
  /**
   * What a custom name may be, where the provider has rules of its own (a tempmail service: the
   * interface's, model/prefix-rules.ts). The picker checks them before it shows a ✓; the provider still
   * has the last word.
   */
  names?: NameRules;
}

/** A provider's custom-name rules: length, and the characters, with how to say them. */
export interface NameRules {
  min: number;
  max: number;
  pattern: RegExp;
  /** "a-z, 0-9, ".", "_" and "-"" */
  chars: string;
}

/** A provider as people meet it. */
export interface ProviderInfo {
  id: ProviderId;
  /** Its name for people: "mail.tm", "Guerrilla Mail", "tempmail". */
  label: string;
  /** The base URL used when none is configured. */
  defaultBaseUrl: string;
  /** Works with no internet connection (only a tempmail service on this machine does). */
  offline: boolean;
  /** One line: what to know before using it. */
  note: string;
  limits: ProviderLimits;
  /**
   * What `deleteAddress` does, for the question that offers it ("delete the mail.tm account"); absent
   * when the provider cannot delete an address.
   */
  deleteAddress?: string;
}

/** What the caller of createSession hears before it resolves. */
export interface CreateHooks {
  /** The address exists at the provider; its token is not had yet (`token` is ""). Save it now. */
  keep?(pending: Session): void;
}

/** How a provider's new-mail push is doing (mail.tm's event stream). */
export type PushState = 'connecting' | 'live' | 'down';

/** A running new-mail push; `stop()` ends it (safe to call twice). */
export interface MailWatch {
  stop(): void;
}

export interface MailWatchEvents {
  /** Mail may have arrived (or changed): list again now. */
  onMail(): void;
  /** The push channel connected, failed or is connecting again; polling goes on either way. */
  onState(state: PushState): void;
}

/**
 * One mail provider: everything the app and the scripting commands ask of any of them. Calls take the
 * whole session (a provider may need more than the token: mail.tm fetches a new token with the
 * account's password when the old one is refused). Every string in a result is terminal-safe; every
 * failure is an ApiError whose message names no token or password.
 */
export interface MailProvider {
  readonly info: ProviderInfo;
  /** The base URL it talks to, normalised (one trailing slash). */
  readonly baseUrl: string;
  /** The domains (and external-mail accounts, where the provider has them) new addresses can use. */
  listDomains(): Promise<DomainList>;
  /**
   * A new address: random, or with `prefix`, on `domain`/`domainId` or one the provider picks. Where an
   * address exists at the provider before its token is had (a mail.tm account, then its sign-in),
   * `hooks.keep` gets it first, with no token yet, so that it can be saved: a sign-in that fails then
   * leaves an address the next call signs in to, not an account nobody has the password of.
   */
  createSession(options?: CreateSessionOptions, hooks?: CreateHooks): Promise<Session>;
  /**
   * Every message of the address (every page of them), newest first, within the listing's bounds
   * (listing.ts): what it had to leave out is said in the list's `cut`.
   */
  listMessages(session: Session): Promise<MessageList>;
  /** One message: text and/or HTML, attachments listed. */
  readMessage(session: Session, id: MessageId): Promise<Message>;
  deleteMessage(session: Session, id: MessageId): Promise<void>;
  /** The bytes of an attachment listed by `readMessage`. */
  downloadAttachment(session: Session, messageId: MessageId, attachment: AttachmentInfo): Promise<Buffer>;
  /** Deletes the address at the provider (see `info.deleteAddress`); absent where it cannot be done. */
  deleteAddress?(session: Session): Promise<void>;
  /** New mail pushed as it arrives, where the provider has a channel for it; polling stays the fallback. */
  watchMail?(session: Session, events: MailWatchEvents): MailWatch;
  /**
   * The message's source (the viewer's `R`; `S` saves it as .eml): the raw message where the provider
   * serves it, else every field it returned for the message. Absent: the app shows the parsed fields.
   */
  readSource?(session: Session, id: MessageId): Promise<MessageSource>;
  /**
   * One cheap call that shows the provider answers as itself (`providers --check`); absent: listDomains
   * is that call. Resolves when it does; fails as any call does.
   */
  probe?(): Promise<void>;
  /** Tells a provider that keeps read state that the message was opened; absent where it keeps none. */
  markRead?(session: Session, id: MessageId): Promise<void>;
}
