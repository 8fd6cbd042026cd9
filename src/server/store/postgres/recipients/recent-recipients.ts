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
 *   any instance (taken over, swept) is forgotten when its notice comes, at that COMMIT, and so is one
 *   another instance stored mail into (its count moved); while the notices are not heard (not yet, or
 *   their connection is lost) nothing is kept, and all is forgotten.
 * - An answer read while it was forgotten, or while mail was stored into its session (`mark()`), is not
 *   kept: it may predate that.
 * - This instance's own writes forget what they change at once (a session written or deleted, an inbox
 *   found full); its own deliveries add to the kept count.
 * - A refusal is never made on a kept answer: the caller asks the database again (Store.recipientInbox's
 *   `fresh`) before it answers "expired" or "full" (smtp-recipients.ts). So a kept answer can only let
 *   a message on to DATA, where the delivery decides against the database itself (the inbox limit under
 *   the session's lock, a session gone since: stored nowhere), as it did for a read answered just before
 *   a change.
 *
 * Bounded: MAX_KEPT addresses (the oldest forgotten first), and as many sessions' marks.
 */
import type { RecipientInbox } from '../../store';

/** How long an answer is kept, ms. */
export const RECENT_MS = 1000;
/** Addresses kept at most, and sessions whose recent change is remembered for the reads in flight. */
const MAX_KEPT = 10_000;

interface Kept {
  at: number;
  inbox: RecipientInbox;
}

/** Where a read stood when it was sent (mark()): keep() refuses what changed since. */
export interface ReadMark {
  moves: number;
  changes: number;
}

export class RecentRecipients {
  private readonly byKey = new Map<string, Kept>();
  /** Session id -> address key, and token hash -> address key, of what is kept. */
  private readonly keyOfId = new Map<string, string>();
  private readonly keyOfHash = new Map<string, string>();
  private listeners = 0;
  /** Moves whenever something is forgotten: a read that spans a move is not kept. */
  private moves = 0;
  /** Counts mail stored into sessions; `changed` says when each last got some (by id, and by token hash). */
  private changes = 0;
  private readonly changed = new Map<string, number>();

  constructor(
    private readonly keepMs = RECENT_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Where things stand: a read notes it when sent and hands it to keep(). */
  mark(): ReadMark {
    return { moves: this.moves, changes: this.changes };
  }

  /** Mail notices heard (true) or no longer (false) by one listener of this store. */
  listening(heard: boolean): void {
    this.listeners += heard ? 1 : -1;
    this.clear();
  }

  /** The answer kept for `key`, a copy, when it is recent. */
  get(key: string): RecipientInbox | undefined {
    const kept = this.byKey.get(key);
    if (!kept) return undefined;
    if (this.now() - kept.at >= this.keepMs) {
      this.drop(key);
      return undefined;
    }
    return { session: { ...kept.inbox.session }, messages: kept.inbox.messages, recent: true };
  }

  /** Keeps what a read sent at `mark` found, unless it was forgotten or its session got mail since. */
  keep(key: string, inbox: RecipientInbox, mark: ReadMark): void {
    if (this.listeners <= 0 || mark.moves !== this.moves) return;
    const { id, tokenHash } = inbox.session;
    if ((this.changed.get(`i ${id}`) ?? 0) > mark.changes || (this.changed.get(`h ${tokenHash}`) ?? 0) > mark.changes)
      return;
    this.drop(key);
    while (this.byKey.size >= MAX_KEPT) this.drop(this.byKey.keys().next().value!);
    this.byKey.set(key, { at: this.now(), inbox: { session: { ...inbox.session }, messages: inbox.messages } });
    this.keyOfId.set(id, key);
    this.keyOfHash.set(tokenHash, key);
  }

  /** Deliveries this instance stored into these sessions (one message each): counted where kept. */
  stored(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) {
      this.change(`i ${id}`);
      const kept = this.byKey.get(this.keyOfId.get(id) ?? '');
      if (kept?.inbox.session.id === id) kept.inbox.messages++;
    }
  }

  /** Another instance stored mail into the sessions with these token hashes (a notice): forgotten. */
  storedElsewhere(hashes: Iterable<string>): void {
    for (const h of hashes) {
      this.change(`h ${h}`);
      const key = this.keyOfHash.get(h);
      if (key !== undefined) this.drop(key);
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
    this.changed.clear();
  }

  private change(session: string): void {
    // Past the bound, every read in flight is refused instead (a move).
    if (this.changed.size >= MAX_KEPT) {
      this.changed.clear();
      this.moves++;
    }
    this.changed.delete(session);
    this.changed.set(session, ++this.changes);
  }

  private forgetBy(keyOf: Map<string, string>, sessions: Iterable<string>): void {
    this.moves++;
    for (const s of sessions) {
      const key = keyOf.get(s);
      if (key !== undefined) this.drop(key);
    }
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
