/**
 * What the Postgres store keeps for fetching external accounts: the cursors (Store.getFetchCursor and
 * putFetchCursor, table tempmail_fetch_cursors), the statuses (tempmail_fetch_status) and the claims.
 *
 * Fetch claims (Store.claimFetch): one instance among all those on the database
 * fetches each external account. A claim is a session-level advisory lock taken on a connection this
 * instance keeps for its claims alone (outside the pool, whose connections come and go). The database
 * drops the lock with the connection, so when an instance dies (kill -9, a lost machine) its claims go
 * with it and another instance's next claim wins; when the connection breaks under a live instance, its
 * claims are lost (FetchClaim.lost resolves) and it stops fetching before anyone else can start.
 */
import type pg from 'pg';
import type { FetchClaim, FetchCursor, FetchStatus } from '../store';
import { createPool, query } from './connection/pool';
import type { StoreLog } from '../store-log';

/** The cursor of one folder, or undefined. */
export async function readCursor(pool: pg.Pool, account: string, folder: string): Promise<FetchCursor | undefined> {
  const [row] = await query<{ uid_validity: string; last_uid: string; renumbered_at: Date | null }>(
    pool,
    'SELECT uid_validity, last_uid, renumbered_at FROM tempmail_fetch_cursors WHERE account = $1 AND folder = $2',
    [account, folder],
  );
  if (!row) return undefined;
  const cursor: FetchCursor = { uidValidity: Number(row.uid_validity), lastUid: Number(row.last_uid) };
  if (row.renumbered_at) cursor.renumberedAt = row.renumbered_at.getTime();
  return cursor;
}

/** Saves the cursor of one folder (committed when it resolves). */
export async function writeCursor(pool: pg.Pool, account: string, folder: string, cursor: FetchCursor): Promise<void> {
  await pool.query(
    `INSERT INTO tempmail_fetch_cursors (account, folder, uid_validity, last_uid, renumbered_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (account, folder) DO UPDATE
        SET uid_validity = EXCLUDED.uid_validity, last_uid = EXCLUDED.last_uid, renumbered_at = EXCLUDED.renumbered_at`,
    [
      account,
      folder,
      cursor.uidValidity,
      cursor.lastUid,
      cursor.renumberedAt === undefined ? null : new Date(cursor.renumberedAt),
    ],
  );
}

/** The last status of an account, or undefined. */
export async function readStatus(pool: pg.Pool, account: string): Promise<FetchStatus | undefined> {
  const [row] = await query<{ active: boolean; reason: string; at: Date }>(
    pool,
    'SELECT active, reason, at FROM tempmail_fetch_status WHERE account = $1',
    [account],
  );
  return row && { active: row.active, reason: row.reason, at: row.at.getTime() };
}

/** Saves the status of an account (committed when it resolves). */
export async function writeStatus(pool: pg.Pool, account: string, status: FetchStatus): Promise<void> {
  await pool.query(
    `INSERT INTO tempmail_fetch_status (account, active, reason, at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (account) DO UPDATE SET active = EXCLUDED.active, reason = EXCLUDED.reason, at = EXCLUDED.at`,
    [account, status.active, status.reason, new Date(status.at)],
  );
}

/** Namespace of the two-key advisory locks of claims (beside ADDRESS_LOCK and RATE_LOCK). */
const FETCH_LOCK = 7240;

interface Holder {
  client: pg.PoolClient;
  /** The claims held on this connection, by account: each one's way to say it is lost. */
  held: Map<string, () => void>;
  broken: boolean;
}

/** The claims of one PostgresStore. */
export class PgFetchClaims {
  private pool: pg.Pool | undefined;
  private holder: Promise<Holder> | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly log: StoreLog,
  ) {}

  /** The connection claims are held on, opened when first needed and again after it broke. */
  private connection(): Promise<Holder> {
    if (this.holder) return this.holder;
    this.pool ??= createPool({ url: this.url, max: 1, log: this.log });
    const opening = this.pool.connect().then((client) => {
      const h: Holder = { client, held: new Map(), broken: false };
      const broke = (error?: Error) => {
        if (h.broken) return;
        h.broken = true;
        if (this.holder === opening) this.holder = undefined;
        if (h.held.size > 0 && !this.closed)
          this.log(
            `database connection of the fetch claims lost${error ? `: ${error.message}` : ''}; fetching stops until a claim is won again`,
            { level: 'warn', event: 'imap.claims_lost' },
          );
        for (const lose of h.held.values()) lose();
        h.held.clear();
        client.release(error ?? true);
      };
      client.on('error', broke);
      client.on('end', () => broke());
      return h;
    });
    this.holder = opening;
    opening.catch(() => {
      if (this.holder === opening) this.holder = undefined;
    });
    return opening;
  }

  async claim(account: string): Promise<FetchClaim | undefined> {
    const h = await this.connection();
    if (h.held.has(account)) return undefined;
    // Marked before the first await: the lock is re-entrant on one connection, so a second claim of
    // this instance must be refused here, not by the database.
    let lose: () => void = () => undefined;
    h.held.set(account, () => lose());
    const marker = h.held.get(account);
    let got = false;
    try {
      const { rows } = await h.client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [
        FETCH_LOCK,
        account,
      ]);
      got = rows[0]?.got === true && !h.broken; // a lock taken as the connection broke went with it
    } finally {
      if (!got && h.held.get(account) === marker) h.held.delete(account);
    }
    if (!got) return undefined;
    const lost = new Promise<void>((resolve) => (lose = resolve));
    return {
      lost,
      release: async () => {
        if (h.broken || h.held.get(account) !== marker) return;
        h.held.delete(account);
        await h.client
          .query('SELECT pg_advisory_unlock($1, hashtext($2))', [FETCH_LOCK, account])
          .catch(() => undefined);
      },
    };
  }

  /** Ends the connection: every claim is lost (and the database drops the locks). */
  async close(): Promise<void> {
    this.closed = true;
    const opening = this.holder;
    this.holder = undefined;
    const h = await opening?.catch(() => undefined);
    if (h && !h.broken) {
      // Given back before close() resolves, not whenever the database notices the connection ended.
      await h.client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      h.broken = true;
      for (const lose of h.held.values()) lose();
      h.held.clear();
      h.client.release(true);
    }
    await this.pool?.end().catch(() => undefined);
  }
}
