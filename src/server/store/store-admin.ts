/**
 * The part of a Store the admin API and the services sharing it use: searching messages by where they
 * came from, the blocks, and news of mail other services stored.
 */
import type { StoredMessageMeta, StoredSession } from './stored-records';

/** What the admin API asks of the messages (every part given must match). */
export interface MessageFilter {
  /** An address (the From address or the envelope sender, any letter case) or a domain (and its subdomains). */
  sender?: string;
  /** An IP address or a CIDR range (`203.0.113.0/24`) the message came from. */
  clientIp?: string;
}

/** A message the admin API found, with the session holding it. */
export interface FoundMessage {
  session: StoredSession;
  message: StoredMessageMeta;
}

/** What the service refuses mail from (applied at SMTP connect, MAIL FROM and RCPT TO). */
export type BlockKind = 'sender' | 'domain' | 'ip';
/** Every kind of block, as the API and the stores spell them. */
export const BLOCK_KINDS: readonly BlockKind[] = ['sender', 'domain', 'ip'];

export interface Block {
  kind: BlockKind;
  /** An address (sender), a domain (domain: and its subdomains), or an IP address or CIDR range (ip); lower case. */
  value: string;
  /** Epoch ms. */
  createdAt: number;
}

/** What a store tells a service of the mail other services sharing it store (Store.listenForMail). */
export interface MailNoticeEvents {
  /** Another service stored mail for the sessions with these token hashes. */
  onMail(tokenHashes: string[]): void;
  /** Notices may have been missed (the listening connection broke and is back): any session may have mail. */
  onGap(): void;
  /** A service deleted the sessions with these token hashes (the admin API): their watchers are told. */
  onGone?(tokenHashes: string[]): void;
  /** The notices are heard from now on (true), or no longer (false): the metrics' push connection. */
  onListening?(up: boolean): void;
  /** Another service changed the blocks (putBlock, deleteBlock), or notices may have been missed: read them again. */
  onBlocks?(): void;
}

/** A running Store.listenForMail. */
export interface MailNotices {
  /** Stops listening. Idempotent. */
  close(): Promise<void>;
}

/** What the admin API and shared services ask of a Store. */
export interface AdminStore {
  /**
   * Messages that match `filter`, newest first, at most `limit`. The file store reads the message headers
   * of every inbox not read yet (once): an admin's question, not one for every request.
   */
  findMessages(filter: MessageFilter, limit: number): Promise<FoundMessage[]>;
  /** Every block, oldest first. Services sharing the store share them. */
  listBlocks(): Promise<Block[]>;
  /** Adds a block (durable when it resolves); false when one of that kind and value is there already. */
  putBlock(block: Block): Promise<boolean>;
  /** Removes a block; false when there was none. */
  deleteBlock(kind: BlockKind, value: string): Promise<boolean>;

  /**
   * Where other services may store mail in this store (Postgres, any number of instances): listens for
   * the deliveries they make and tells `events` (a service hears of its own deliveries from deliver()).
   * Absent where one process alone writes (file store: service.lock; memory store).
   */
  listenForMail?(events: MailNoticeEvents): MailNotices;
}
