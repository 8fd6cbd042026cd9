/**
 * An inbox in the Postgres store: its listing, its version, its messages and their parts, and deleting
 * one. Each is one statement on any pooled connection but the delete (see there). PostgresStore calls
 * these while it counts them in flight.
 */
import type pg from 'pg';
import type { SessionInbox, StoredMessage, StoredMessageMeta } from '../store';
import { prepared, query, transaction } from './connection/pool';
import { META_COLUMNS, messageOf, metaOf, SESSION_COLUMNS, sessionOf, type MetaRow, type SessionRow } from './rows';

/** The columns of an inbox's version (see inboxVersion). */
const VERSION_COLUMNS = 'last_message_id AS last, message_count AS n';
const versionOf = (row: { last: number; n: number }) => `${row.last}.${row.n}`;

export async function listMessages(pool: pg.Pool, sessionId: string): Promise<StoredMessageMeta[]> {
  return (
    await query<MetaRow>(pool, `SELECT ${META_COLUMNS} FROM tempmail_messages WHERE session_id = $1 ORDER BY id`, [
      sessionId,
    ])
  ).map(metaOf);
}

/**
 * The highest id handed out and how many messages are held: a store of one session only ever raises
 * the first (a message stored) or, with it unchanged, lowers the second (one deleted), both in the
 * transaction that changes the listing (the count by trigger, migration 6), so no two listings of one
 * session share a pair. One row read, whatever the inbox holds.
 */
export async function inboxVersion(pool: pg.Pool, sessionId: string): Promise<string | undefined> {
  const [row] = await query<{ last: number; n: number }>(
    pool,
    `SELECT ${VERSION_COLUMNS} FROM tempmail_sessions WHERE id = $1`,
    [sessionId],
  );
  return row && versionOf(row);
}

/**
 * check-mail's one read, for every token asked together (postgres-store.ts groups them): the session of
 * each token found and its inbox's version, one indexed row each.
 */
export async function inboxesByTokenHash(
  pool: pg.Pool,
  tokenHashes: readonly string[],
): Promise<Map<string, SessionInbox>> {
  const rows = await query<SessionRow & { last: number; n: number }>(
    pool,
    `SELECT ${SESSION_COLUMNS}, ${VERSION_COLUMNS} FROM tempmail_sessions WHERE token_hash = ANY ($1::text[])`,
    [tokenHashes],
  );
  return new Map(rows.map((row) => [row.token_hash, { session: sessionOf(row), version: versionOf(row) }]));
}

export async function getMessage(pool: pg.Pool, sessionId: string, id: number): Promise<StoredMessage | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const rows = await query<MetaRow & { body: StoredMessage }>(
    pool,
    `SELECT ${META_COLUMNS}, body FROM tempmail_messages WHERE session_id = $1 AND id = $2`,
    [sessionId, id],
  );
  return rows[0] && messageOf(rows[0]);
}

/** The session's count (migration 6): one row, not a count over its messages. */
export async function countMessages(pool: pg.Pool, sessionId: string): Promise<number> {
  return (
    (await query<{ n: number }>(pool, 'SELECT message_count AS n FROM tempmail_sessions WHERE id = $1', [sessionId]))[0]
      ?.n ?? 0
  );
}

/**
 * Takes the session's row lock first, as a delivery and the sweep do: the trigger that counts the
 * delete updates that row, and taken after the message's (the other order) it could deadlock with a
 * sweep deleting the session, which holds the session's row and waits for the message's.
 */
export async function deleteMessage(pool: pg.Pool, sessionId: string, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id)) return false;
  return transaction(pool, async (c) => {
    const held = await c.query(
      prepared('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR NO KEY UPDATE', [sessionId]),
    );
    if (held.rowCount === 0) return { value: false, rollback: true };
    const removed =
      (await c.query(prepared('DELETE FROM tempmail_messages WHERE session_id = $1 AND id = $2', [sessionId, id])))
        .rowCount! > 0;
    return { value: removed, rollback: !removed };
  });
}

export async function rawMessage(pool: pg.Pool, sessionId: string, id: number): Promise<Buffer | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const rows = await query<{ raw: Buffer }>(
    pool,
    'SELECT raw FROM tempmail_messages WHERE session_id = $1 AND id = $2',
    [sessionId, id],
  );
  return rows[0]?.raw;
}

export async function attachmentBytes(
  pool: pg.Pool,
  sessionId: string,
  id: number,
  attachmentId: number,
): Promise<Buffer | undefined> {
  if (
    !Number.isSafeInteger(id) ||
    !Number.isSafeInteger(attachmentId) ||
    attachmentId < 1 ||
    attachmentId > 2 ** 31 - 1
  )
    return undefined;
  const rows = await query<{ bytes: Buffer | null }>(
    pool,
    'SELECT attachments[$3::int] AS bytes FROM tempmail_messages WHERE session_id = $1 AND id = $2',
    [sessionId, id, attachmentId],
  );
  return rows[0]?.bytes ?? undefined;
}
