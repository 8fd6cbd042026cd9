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
  /**
   * The provider picks the domain of each new address itself and lists none (TempMail.lol): new addresses
   * are asked for without one (a named domain is still passed on, for the provider to take or refuse).
   */
  anyDomain?: boolean;
}

export interface Session {
  email: string;
  /** Secret. Never printed, logged, put in argv or in an error. */
  token: string;
  /** Absolute expiry instant (tempmail: `expires_at` in the configured server zone); null: the provider sets none. */
  expiresAt: Date | null;
  /**
   * Secret, where the provider has accounts (mail.tm): the account's password, to get a new token when
   * the old one is refused. Never printed, logged, put in argv or in an error.
   */
  password?: string;
  /** The provider's own id of the account (mail.tm), for deleting it and for its new-mail events. */
  accountId?: string;
}

/** Milliseconds of `session.expiresAt`, or Infinity for an address that does not expire. */
export function expiryMs(session: Pick<Session, 'expiresAt'>): number {
  return session.expiresAt === null ? Infinity : session.expiresAt.getTime();
}

/** A message's id: the provider's own (digits on tempmail services and Guerrilla Mail, hex on mail.tm). */
export type MessageId = string;

export interface MessageSummary {
  id: MessageId;
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
  /** The provider's handle of the attachment (an id, a part number); only the provider reads it. */
  id: string;
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
export type MessageSource =
  | { kind: 'raw'; bytes: Buffer }
  | { kind: 'fields'; fields: [name: string, value: string][] };

export interface CreateSessionOptions {
  /** Custom local part; random when omitted. */
  prefix?: string;
  domainId?: number;
  /** The domain's name, with `domainId`: providers that create by name (mail.tm, Guerrilla Mail) use it. */
  domain?: string;
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

/** The providers the client layer speaks (src/client/<name>/); the settings name them too. */
export const PROVIDER_IDS = ['tempmail', 'mailtm', 'guerrilla', 'tempmaillol'] as const;

/** One of PROVIDER_IDS. */
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** True for the names in PROVIDER_IDS. */
export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

/**
 * Where `auto` looks first, and the way the picker's `p` goes, when the settings name no
 * `providerOrder`: public inboxes first, a tempmail service last. The settings (state/) and the client
 * (client/providers.ts) both read it.
 */
export const DEFAULT_PROVIDER_ORDER: readonly ProviderId[] = ['mailtm', 'tempmaillol', 'guerrilla', 'tempmail'];
