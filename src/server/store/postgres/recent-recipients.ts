/**
 * RCPT TO's recent answers (recipient-reads.ts): an address found a moment ago is taken as found again,
 * for at most RECENT_MS, without the database. Under SMTP load the RCPT read was, after the delivery
 * itself, the biggest piece of work a message cost the service and the database (one query a message,
 * as the addresses asked together are few), and an answer a second old says what one asked now would.
 *
 * What keeps an answer true:
 * - Only found addresses are kept: an address not found is asked again each time (a session created a
 *   moment ago, by any instance, gets its mail at once).
 * - Only while this instance hears the mail notices (mail-notices.ts, `listening`): a session deleted by
 *   any instance is forgotten when its notice comes, at that COMMIT; while the notices are not heard (not
 *   yet, or their connection is lost) nothing is kept, and all is forgotten.
 * - An answer read while a notice was forgotten (`generation` moved) is not kept: it may predate it.
 * - This instance's own writes forget what they change at once (a session written, deleted, a message
 *   deleted); its own deliveries add to the kept count.
 * - A refusal is never made on a kept answer: the caller asks the database again (Store.recipientInbox's
 *   `fresh`) before it answers "expired" or "full" (smtp-recipients.ts). So a kept answer can only let
 *   a message on to DATA, where the delivery decides against the database itself (the inbox limit under
 *   the session's lock, a session gone since: stored nowhere), as it did for a read answered just before
 *   a change.
 *
 * Bounded: MAX_KEPT addresses, the oldest forgotten first.
 */
import type { RecipientInbox } from '../store';

/** How long an answer is kept, ms. */
export const RECENT_MS = 1000;
/** Addresses kept at most. */
const MAX_KEPT = 10_000;

interface Kept {
  at: number;
  inbox: RecipientInbox;
}

export class RecentRecipients {
  private readonly byKey = new Map<string, Kept>();
  /** Session id -> address key, and token hash -> address key, of what is kept. */
  private readonly keyOfId = new Map<string, string>();
  private readonly keyOfHash = new Map<string, string>();
  private listeners = 0;
  /** Moves whenever something is forgotten: a read that spans a move is not kept. */
  private moves = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Where forgetting stands: a read notes it when sent and hands it to keep(). */
  get generation(): number {
    return this.moves;
  }

  /** Mail notices heard (true) or no longer (false) by one listener of this store. */
  listening(heard: boolean): void {
    this.listeners = Math.max(0, this.listeners + (heard ? 1 : -1));
    this.clear();
  }

  /** The answer kept for `key`, a copy, when it is recent. */
  get(key: string): RecipientInbox | undefined {
    const kept = this.byKey.get(key);
    if (!kept) return undefined;
    if (this.now() - kept.at >= RECENT_MS) {
      this.drop(key);
      return undefined;
    }
    return { session: { ...kept.inbox.session }, messages: kept.inbox.messages, recent: true };
  }

  /** Keeps what a read sent at `generation` found, unless something was forgotten since. */
  keep(key: string, inbox: RecipientInbox, generation: number): void {
    if (this.listeners === 0 || generation !== this.moves) return;
    this.drop(key);
    while (this.byKey.size >= MAX_KEPT) this.drop(this.byKey.keys().next().value!);
    this.byKey.set(key, { at: this.now(), inbox: { session: { ...inbox.session }, messages: inbox.messages } });
    this.keyOfId.set(inbox.session.id, key);
    this.keyOfHash.set(inbox.session.tokenHash, key);
  }

  /** Deliveries this instance stored into these sessions (one message each). */
  stored(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) {
      const kept = this.byKey.get(this.keyOfId.get(id) ?? '');
      if (kept?.inbox.session.id === id) kept.inbox.messages++;
    }
  }

  /** Forgets the sessions with these ids (deleted, rewritten, full). */
  forget(ids: Iterable<string>): void {
    this.forgetBy(this.keyOfId, ids);
  }

  /** Forgets the sessions with these token hashes (deleted: a notice said so). */
  forgetHashes(hashes: Iterable<string>): void {
    this.forgetBy(this.keyOfHash, hashes);
  }

  private forgetBy(keyOf: Map<string, string>, sessions: Iterable<string>): void {
    this.moves++;
    for (const s of sessions) {
      const key = keyOf.get(s);
      if (key !== undefined) this.drop(key);
    }
  }

  /** Forgets what is kept for an address (a session written for it). */
  forgetAddress(key: string): void {
    this.moves++;
    this.drop(key);
  }

  clear(): void {
    this.moves++;
    this.byKey.clear();
    this.keyOfId.clear();
    this.keyOfHash.clear();
  }

  private drop(key: string): void {
    const kept = this.byKey.get(key);
    if (!kept) return;
    this.byKey.delete(key);
    const { id, tokenHash } = kept.inbox.session;
    if (this.keyOfId.get(id) === key) this.keyOfId.delete(id);
    if (this.keyOfHash.get(tokenHash) === key) this.keyOfHash.delete(tokenHash);
  }
}
