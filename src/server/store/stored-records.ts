/**
 * What a store keeps of a session and of a message's listing: the records both the storage contract
 * (store.ts) and its admin part (store-admin.ts) speak of, in a file of their own so that neither
 * imports the other's.
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
  /** The SMTP client's IP address, for the admin API (absent for mail fetched over IMAP, or stored before it was kept). */
  clientIp?: string;
  /** The SMTP envelope sender (MAIL FROM; '' for a bounce), for the admin API (absent as clientIp). */
  envelopeFrom?: string;
}
