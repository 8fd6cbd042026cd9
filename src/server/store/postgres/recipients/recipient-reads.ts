/**
 * RCPT TO's reads: the addresses asked for together are one query (grouped-reads.ts). Under SMTP load
 * each RCPT was a round trip of its own, and those were a fifth of the service's and the database's work
 * a message. An address found is then taken as found for a moment (recent-recipients.ts says for how
 * long and what keeps that true); every other answer, and each one asked `fresh`, comes from a query
 * sent after it was asked for. A read asked once the store is closing is refused (StoreClosedError).
 */
import type pg from 'pg';
import type { RecipientInbox } from '../../store';
import { GroupedReads } from '../grouped-reads';
import { query } from '../connection/pool';
import type { RecentRecipients } from './recent-recipients';
import { SESSION_COLUMNS, sessionOf, type SessionRow } from '../rows';

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

/** The RCPT reads of one store. */
export class RecipientReads {
  private readonly reads: GroupedReads<RecipientInbox>;

  /**
   * @param run the store's wrapper of a database call (closed store, pending set).
   * @param recent the answers kept a moment, asked before the database and given what it finds.
   * @param onRead called with how many addresses each query reads.
   */
  constructor(
    run: <T>(work: (pool: pg.Pool) => Promise<T>) => Promise<T>,
    private readonly recent: RecentRecipients,
    onRead: (addresses: number) => void = () => undefined,
  ) {
    this.reads = new GroupedReads({
      run,
      readAll: async (pool, keys) => {
        // Taken as the query goes: a change heard from here on keeps its answers from being kept.
        const mark = recent.mark();
        const found = await readAll(pool, keys);
        for (const [key, inbox] of found) recent.keep(key, inbox, mark);
        return found;
      },
      copy: (inbox) => ({ session: { ...inbox.session }, messages: inbox.messages }),
      onRead,
    });
  }

  /**
   * The newest session holding `addressKey` and its message count: a recent answer (marked `recent`)
   * unless `fresh`, else read with whatever else is asked meanwhile.
   */
  read(addressKey: string, fresh = false): Promise<RecipientInbox | undefined> {
    const kept = fresh ? undefined : this.recent.get(addressKey);
    if (kept) return Promise.resolve(kept);
    return this.reads.read(addressKey);
  }
}
