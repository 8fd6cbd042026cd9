/**
 * The project's own domain types. The client module turns whatever the service answers into these;
 * every string in them has already passed through safeText.
 */

export interface Domain {
  id: number;
  domain: string;
}

export interface ExtmailAccount {
  id: number;
  email: string;
}

export interface DomainList {
  domains: Domain[];
  extmailAccounts: ExtmailAccount[];
}

export interface Session {
  email: string;
  /** Secret. Never printed, logged, put in argv or in an error. */
  token: string;
  /** Absolute expiry instant, parsed from `expires_at` in the configured server zone. */
  expiresAt: Date;
}

export interface MessageSummary {
  id: number;
  senderName: string;
  /** May be "" when the service leaves it out of the listing. */
  senderEmail: string;
  subject: string;
  /** null when the service sent something that is not a time. */
  receivedAt: Date | null;
  /** The listing says whether it has attachments (a service that does not say leaves it out). */
  hasAttachments?: boolean;
  /** The service keeps read state and says this one was read (mail.tm's `seen`); absent when it does not. */
  seen?: boolean;
}

export interface AttachmentInfo {
  id: number;
  filename: string;
  contentType: string;
  size: number;
}

export interface Message extends MessageSummary {
  to: string[];
  cc: string[];
  bodyText: string | null;
  bodyHtml: string | null;
  attachments: AttachmentInfo[];
  /** Selected headers (e.g. Date, Message-ID) when the service sends them (reference-service extension). */
  headers?: Record<string, string>;
}

/**
 * A message as the service holds it, for the viewer's source view and for saving it as `.eml`: the raw
 * message byte for byte where the service gives it, else every field the service returned for it (names
 * and values already terminal-safe), the nearest thing it has.
 */
export type MessageSource = { kind: 'raw'; bytes: Buffer } | { kind: 'fields'; fields: [name: string, value: string][] };

export interface CreateSessionOptions {
  /** Custom local part; random when omitted. */
  prefix?: string;
  domainId?: number;
  /** Ask for an alias of an external-mail account. */
  useExtmail?: boolean;
  /** With useExtmail: let the service pick the account. */
  extmailAuto?: boolean;
  /** With useExtmail: this account (reference-service extension). */
  extmailId?: number;
}

/**
 * How POST parameters travel to the service. The public service reads forms, so that is the default. A
 * plain domain type: the config file (state/) and the client module (client/) both name it.
 */
export type PostEncoding = 'form' | 'json' | 'query';
