/**
 * Writes a session and its messages, as another store holds them, into the Postgres store's tables
 * (`serve migrate`, src/server/serve/migrate-cli.ts): the session keeps its id and token hash (its token goes
 * on working), each message its id. One transaction a session. What is there already (the same session
 * id, the same message id of that session) is left as it is, so a second run adds nothing twice. Of a
 * session the database has already, only messages above the last id it handed out are added: mail that
 * reached the data dir since the last run. One at or below it that the database no longer has was deleted
 * there (or expired), and a second run must not bring it back.
 */
import type pg from 'pg';
import type { NewMessage, StoredSession } from '../store';
import { transaction } from './connection/pool';
import { messageValues, SESSION_COLUMNS, sessionValues } from './rows';

/** What importing one session did. */
export interface ImportedSession {
  sessionAdded: boolean;
  messagesAdded: number;
  /** In the database already (the same id). */
  messagesSkipped: number;
  /** Of a session the database had: at or below its last id, and gone from it (deleted or expired there). */
  messagesGone: number;
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
    const sessionAdded = ((await c.query(INSERT_SESSION, sessionValues(session))).rowCount ?? 0) > 0;
    const held = await c.query<{ token_hash: string; last_message_id: string }>(
      'SELECT token_hash, last_message_id FROM tempmail_sessions WHERE id = $1 FOR UPDATE',
      [session.id],
    );
    if (held.rows[0]?.token_hash !== session.tokenHash)
      throw new Error(`session ${session.id} is in the database under another token`);
    // Ids up to here were handed out by the database or a run before: a message among them is there or gone.
    const handedOut = sessionAdded ? 0 : Number(held.rows[0].last_message_id);
    const earlier = messages.filter((m) => m.id <= handedOut).map((m) => m.id);
    const present = earlier.length === 0 ? 0 : await countPresent(c, session.id, earlier);
    let messagesAdded = 0;
    for (const { id, message } of messages) {
      if (id <= handedOut) continue;
      messagesAdded += (await c.query(INSERT_MESSAGE, [session.id, id, ...messageValues(message)])).rowCount ?? 0;
    }
    // New mail takes ids above every id the data dir handed out (migration 8 takes them from the clock).
    const last = Math.max(0, ...messages.map((m) => m.id));
    await c.query('UPDATE tempmail_sessions SET last_message_id = greatest(last_message_id, $2) WHERE id = $1', [
      session.id,
      last,
    ]);
    const messagesGone = earlier.length - present;
    return {
      value: {
        sessionAdded,
        messagesAdded,
        messagesSkipped: messages.length - messagesAdded - messagesGone,
        messagesGone,
      },
    };
  });
}

async function countPresent(c: pg.PoolClient, sessionId: string, ids: readonly number[]): Promise<number> {
  const found = await c.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM tempmail_messages WHERE session_id = $1 AND id = ANY($2::bigint[])',
    [sessionId, ids],
  );
  return found.rows[0]?.n ?? 0;
}
