/**
 * Reads by key, grouped: the keys asked for while the reads in the database are busy go together in the
 * next one, one query for all of them (RCPT's addresses, recipient-reads.ts; check-mail's tokens,
 * postgres-store.ts). Under load each ask was a round trip of its own: a backend woken, a statement
 * run, an answer parsed, for every SMTP recipient and every poll.
 *
 * Every answer comes from a query sent after it was asked for (never one already in the database), so
 * no caller gets an answer older than its question. At low load a read holds one key and is sent on the
 * next turn of the loop: grouping adds that turn at most. The reads in the database at once are bounded
 * (inFlight); what comes meanwhile waits for one of them to end (with the database unreachable, a
 * connection attempt's timeout each: a caller may hear of it only after the reads before it failed). A
 * read the database fails fails each key it held (as it would have each alone, on the same connection).
 */
import type pg from 'pg';

interface Asked<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

export interface GroupedReadsOptions<V> {
  /** The store's wrapper of a database call (closed store, pending set). */
  run<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T>;
  /** One query for `keys`: what it found, by key (a key not found is absent). */
  readAll(pool: pg.Pool, keys: readonly string[]): Promise<Map<string, V>>;
  /** Each caller's own copy of a value (two callers of one key never share an object). */
  copy(value: V): V;
  /** Reads in the database at once (default 2). */
  inFlight?: number;
  /** Keys in one read at most (default 500; more go in several). */
  maxKeys?: number;
  /** Called with how many keys each query reads (tests count the queries with it). */
  onRead?: (keys: number) => void;
}

/** The grouped reads of one kind of key. */
export class GroupedReads<V> {
  private readonly asked = new Map<string, Asked<V>[]>();
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;
  private readonly maxKeys: number;

  constructor(private readonly options: GroupedReadsOptions<V>) {
    this.maxInFlight = options.inFlight ?? 2;
    this.maxKeys = options.maxKeys ?? 500;
  }

  /** What a query sent after this call finds for `key` (undefined: nothing), read with what else is asked meanwhile. */
  read(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.asked.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.asked.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.asked.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight >= this.maxInFlight || this.asked.size === 0) return;
      const batch = new Map<string, Asked<V>[]>();
      for (const [key, waiting] of this.asked) {
        if (batch.size === this.maxKeys) break;
        batch.set(key, waiting);
      }
      for (const key of batch.keys()) this.asked.delete(key);
      this.inFlight++;
      this.options.onRead?.(batch.size);
      void this.options
        .run((pool) => this.options.readAll(pool, [...batch.keys()]))
        .then(
          (found) => {
            for (const [key, waiting] of batch) {
              const value = found.get(key);
              for (const w of waiting) w.resolve(value === undefined ? undefined : this.options.copy(value));
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
      // Past maxKeys, the rest goes in the other read the database may take meanwhile.
      this.schedule();
    });
  }
}
