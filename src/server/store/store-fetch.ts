/**
 * The part of a Store that fetches external mail accounts (IMAP) keeps: how far each folder has got, who
 * fetches which account, and how it goes.
 */

/**
 * How far fetching one folder of an external mail account has got (IMAP): the folder's UIDVALIDITY and
 * the highest UID handled (delivered, or left in the account as nobody's). Another UIDVALIDITY means the
 * server renumbered the folder and the UID says nothing any more.
 */
export interface FetchCursor {
  uidValidity: number;
  lastUid: number;
  /**
   * When (ms since the epoch) the fetcher found this UIDVALIDITY in place of another: for a session
   * lifetime after it, a message of the folder may be one already stored under the old numbering.
   */
  renumberedAt?: number;
}

/**
 * How fetching an external account goes, as the service holding its claim last said: shared with the
 * services standing by, so every one of them offers the account (GET /domains) only while it works.
 */
export interface FetchStatus {
  active: boolean;
  /** Why it is inactive, in words without secrets ('' when active). */
  reason: string;
  /** Epoch ms of the report. */
  at: number;
}

/** The right to fetch one external account, held by one service among all those sharing the store. */
export interface FetchClaim {
  /**
   * Resolves when the claim is gone without release(): the store closed, or (Postgres) the connection
   * that holds it broke, so another service may hold it now. Never rejects.
   */
  readonly lost: Promise<void>;
  /** Gives the claim back, for another service (or a later claim) to take. Idempotent. */
  release(): Promise<void>;
}

/** What fetching external accounts asks of a Store. */
export interface FetchStore {
  /** Where fetching `folder` of external account `account` (its address) has got; undefined before the first save. */
  getFetchCursor(account: string, folder: string): Promise<FetchCursor | undefined>;
  /** Saves it (replacing what was there); resolves once durable, so a restart resumes from it. */
  putFetchCursor(account: string, folder: string, cursor: FetchCursor): Promise<void>;
  /**
   * Claims the right to fetch `account`: the claim, or undefined when another holder has it (another
   * service on the same store, or an earlier claim of this one not yet released). A holder that dies
   * (kill -9) loses it with its process: Postgres keeps it as an advisory lock on a connection of its
   * own, which the database drops with that connection; file and memory stores keep it in the process.
   */
  claimFetch(account: string): Promise<FetchClaim | undefined>;
  /** The last status reported for `account` (by whichever service held its claim); undefined before any. */
  getFetchStatus(account: string): Promise<FetchStatus | undefined>;
  /** Reports `account`'s status (replacing the last one); resolves once durable. */
  putFetchStatus(account: string, status: FetchStatus): Promise<void>;
}
