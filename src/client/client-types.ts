import type { CreateSessionOptions, DomainList, Message, MessageSource, MessageSummary, PostEncoding, Session } from '../model/mail-types';

// Defined in model/ (the config file reads it too; state/ never imports the client), offered here with the options.
export type { PostEncoding } from '../model/mail-types';

export interface ApiOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8025/ (a path prefix is kept). */
  baseUrl: string;
  postEncoding?: PostEncoding;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Retries for GETs on network errors and 5xx (default 2). create-session is never retried blindly. */
  retries?: number;
  /** The service's zone for wire times without one, in minutes east of UTC (default 0). */
  serverOffsetMinutes?: number;
  /** First retry delay in ms, doubled per attempt with a little jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Answers larger than this are refused as bad_response (default 64 MiB). */
  maxResponseBytes?: number;
}

/** The whole client: one got instance behind these calls. All results are terminal-safe project types. */
export interface TempMailApi {
  listDomains(): Promise<DomainList>;
  createSession(options?: CreateSessionOptions): Promise<Session>;
  checkMail(token: string): Promise<MessageSummary[]>;
  readMail(token: string, id: number): Promise<Message>;
  deleteMail(token: string, id: number): Promise<void>;
  /**
   * The bytes of one attachment (reference-service extension: GET /attachment?token&id&attachment_id).
   * A service without that route fails with ApiError('not_found', 'This service does not serve attachment bytes').
   */
  downloadAttachment(token: string, id: number, attachmentId: number): Promise<Buffer>;
  /**
   * Optional: the message's source (`R` in the viewer, `S` saves it as .eml). The raw message where the
   * service serves it, else every field it returned for the message. Left out, the app shows the fields
   * of the parsed message instead.
   */
  readSource?(token: string, id: number): Promise<MessageSource>;
  /** Optional: tells a service that keeps read state that the user opened this message (fire and forget). */
  markRead?(token: string, id: number): Promise<void>;
}
