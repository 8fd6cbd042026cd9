/**
 * RCPT TO's reads, grouped: the addresses asked for while a read is in the database go to it together in
 * the next one, one query for all of them. Under SMTP load each RCPT was a round trip of its own, and
 * those were a fifth of the service's and the database's work a message. An address found is then taken
 * as found for a moment (recent-recipients.ts says for how long and what keeps that true); every other
 * answer, and each one asked `fresh`, comes from a query sent after it was asked for.
 *
 * At low load a read holds one address and is sent on the next turn of the loop: grouping never adds a
 * wait of its own. The reads in the database at once are bounded (IN_FLIGHT); what comes meanwhile waits
 * for one of them to end. A read the database fails fails each address it held (as it would have each
 * alone, on the same connection); a read asked once the store is closing is refused (StoreClosedError).
 */
import type pg from 'pg';
import type { RecipientInbox } from '../store';
import { query } from './pool';
import type { RecentRecipients } from './recent-recipients';
import { SESSION_COLUMNS, sessionOf, type SessionRow } from './rows';

/** Reads in the database at once. */
const IN_FLIGHT = 2;

/** Addresses in one read at most (a read of more goes in several). */
const MAX_KEYS = 500;

interface Asked {
  resolve: (inbox: RecipientInbox | undefined) => void;
  reject: (error: unknown) => void;
}

/** The newest session holding each of `keys`, with its message count: one indexed query. */
async function readAll(pool: pg.Pool, keys: readonly string[]): Promise<Map<string, RecipientInbox>> {
  const rows = await query<SessionRow & { n: number }>(
    pool,
    `SELECT DISTINCT ON (address_key) ${SESSION_COLUMNS}, message_count AS n FROM tempmail_sessions
      WHERE address_key = ANY ($1::text[]) ORDER BY address_key, created_at DESC`,
    [keys],
  );
  return new Map(rows.map((row) => [row.address_key, { session: sessionOf(row), messages: row.n }]));
}

/** The grouped RCPT reads of one store. */
export class RecipientReads {
  private readonly asked = new Map<string, Asked[]>();
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param run the store's wrapper of a database call (closed store, pending set).
   * @param recent the answers kept a moment, asked before the database and given what it finds.
   * @param onRead called with how many addresses each query reads.
   */
  constructor(
    private readonly run: <T>(work: (pool: pg.Pool) => Promise<T>) => Promise<T>,
    private readonly recent: RecentRecipients,
    private readonly onRead: (addresses: number) => void = () => undefined,
  ) {}

  /**
   * The newest session holding `addressKey` and its message count: a recent answer (marked `recent`)
   * unless `fresh`, else read with whatever else is asked meanwhile.
   */
  read(addressKey: string, fresh = false): Promise<RecipientInbox | undefined> {
    const kept = fresh ? undefined : this.recent.get(addressKey);
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve, reject) => {
      const waiting = this.asked.get(addressKey);
      if (waiting) waiting.push({ resolve, reject });
      else this.asked.set(addressKey, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= IN_FLIGHT || this.asked.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight >= IN_FLIGHT || this.asked.size === 0) return;
      const batch = new Map<string, Asked[]>();
      for (const [key, waiting] of this.asked) {
        if (batch.size === MAX_KEYS) break;
        batch.set(key, waiting);
      }
      for (const key of batch.keys()) this.asked.delete(key);
      this.inFlight++;
      this.onRead(batch.size);
      const mark = this.recent.mark();
      void this.run((pool) => readAll(pool, [...batch.keys()]))
        .then(
          (found) => {
            for (const [key, waiting] of batch) {
              const inbox = found.get(key);
              if (inbox) this.recent.keep(key, inbox, mark);
              // Each caller its own copy, as from a read of its own.
              for (const w of waiting) w.resolve(inbox && { session: { ...inbox.session }, messages: inbox.messages });
            }
          },
          (error: unknown) => {
            for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
      // Past MAX_KEYS, the rest goes in the other read the database may take meanwhile.
      this.schedule();
    });
  }
}
