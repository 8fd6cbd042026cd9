/**
 * Writes a session and its messages, as another store holds them, into the Postgres store's tables
 * (`serve migrate`, src/server/serve/migrate-cli.ts): the session keeps its id and token hash (its token goes
 * on working), each message its id. One transaction a session. What is there already (the same session
 * id, the same message id of that session) is left as it is, so a second run adds nothing twice.
 *
 * What was deleted from the database since an earlier run is not brought back. Each run records, per
 * session, the highest id of the data dir it copied (IMPORTS, a table of this command's own that serve
 * never reads, so it takes no schema version). A later run adds only that session's messages above it
 * (mail the data dir took since); one at or below it that the database no longer has was deleted there
 * (by its user or the admin API). A session recorded and gone from the database was deleted there, with
 * its messages, and is not made again. Sessions copied by a version before the record are treated as
 * new to it once (their deleted messages come back that one time).
 */
import type pg from 'pg';
import type { NewMessage, StoredSession } from '../store';
import { transaction } from './connection/pool';
import { messageValues, SESSION_COLUMNS, sessionValues } from './rows';

/** What importing one session did. */
export interface ImportedSession {
  sessionAdded: boolean;
  /** The session was copied by an earlier run and deleted from the database since: nothing was added. */
  sessionGone: boolean;
  messagesAdded: number;
  /** In the database already (the same id). */
  messagesSkipped: number;
  /** Copied by an earlier run and deleted from the database since (a deleted session's count in it). */
  messagesGone: number;
}

const IMPORTS = 'tempmail_data_dir_imports';

/** Makes the record of what earlier runs copied, where there is none yet. */
export async function prepareImports(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS ${IMPORTS} (
    session_id text PRIMARY KEY,
    through bigint NOT NULL,
    imported_at timestamptz NOT NULL DEFAULT now()
  )`);
}

const INSERT_SESSION = `INSERT INTO tempmail_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
  ON CONFLICT DO NOTHING`;
const INSERT_MESSAGE = `INSERT INTO tempmail_messages
  (session_id, id, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments, client_ip, envelope_from)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`;

/** Imports `session` with `messages` (by their ids); a session whose id is taken by another token is refused. */
export async function importSession(
  pool: pg.Pool,
  session: StoredSession,
  messages: readonly { id: number; message: NewMessage }[],
): Promise<ImportedSession> {
  return transaction(pool, async (c) => {
    const record = await c.query<{ through: string }>(
      `SELECT through FROM ${IMPORTS} WHERE session_id = $1 FOR UPDATE`,
      [session.id],
    );
    // Up to here an earlier run copied this session's messages: one of them is there or was deleted.
    const copied = record.rows[0] ? Number(record.rows[0].through) : 0;
    const sessionAdded = ((await c.query(INSERT_SESSION, sessionValues(session))).rowCount ?? 0) > 0;
    if (sessionAdded && record.rows[0]) {
      // Copied before and deleted from the database since: not made again.
      const gone = { sessionAdded: false, sessionGone: true, messagesAdded: 0, messagesSkipped: 0 };
      return { value: { ...gone, messagesGone: messages.length }, rollback: true };
    }
    const held = await c.query<{ token_hash: string }>(
      'SELECT token_hash FROM tempmail_sessions WHERE id = $1 FOR UPDATE',
      [session.id],
    );
    if (held.rows[0]?.token_hash !== session.tokenHash)
      throw new Error(`session ${session.id} is in the database under another token`);
    const earlier = messages.filter((m) => m.id <= copied).map((m) => m.id);
    const present = earlier.length === 0 ? 0 : await countPresent(c, session.id, earlier);
    let messagesAdded = 0;
    for (const { id, message } of messages) {
      if (id <= copied) continue;
      messagesAdded += (await c.query(INSERT_MESSAGE, [session.id, id, ...messageValues(message)])).rowCount ?? 0;
    }
    // New mail takes ids above every id the data dir handed out (migration 8 takes them from the clock).
    const last = Math.max(0, ...messages.map((m) => m.id));
    await c.query('UPDATE tempmail_sessions SET last_message_id = greatest(last_message_id, $2) WHERE id = $1', [
      session.id,
      last,
    ]);
    await c.query(
      `INSERT INTO ${IMPORTS} (session_id, through) VALUES ($1, $2)
        ON CONFLICT (session_id) DO UPDATE SET through = greatest(${IMPORTS}.through, excluded.through), imported_at = now()`,
      [session.id, last],
    );
    const messagesGone = earlier.length - present;
    const messagesSkipped = messages.length - messagesAdded - messagesGone;
    return { value: { sessionAdded, sessionGone: false, messagesAdded, messagesSkipped, messagesGone } };
  });
}

async function countPresent(c: pg.PoolClient, sessionId: string, ids: readonly number[]): Promise<number> {
  const found = await c.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM tempmail_messages WHERE session_id = $1 AND id = ANY($2::bigint[])',
    [sessionId, ids],
  );
  return found.rows[0]?.n ?? 0;
}
