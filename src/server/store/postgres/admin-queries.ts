/**
 * The Postgres store's answer to the admin API's searches (Store.findMessages), its blocks (listBlocks,
 * putBlock, deleteBlock). A change of the blocks is announced on BLOCKS_CHANNEL in the same statement,
 * so every instance on the database reads them again at once (mail-notices.ts listens).
 */
import type pg from 'pg';
import type { Block, BlockKind, FoundMessage, MessageFilter } from '../store';
import { query } from './connection/pool';
import { META_COLUMNS, metaOf, SESSION_COLUMNS, sessionOf, type MetaRow, type SessionRow } from './rows';

/** The channel that says "the blocks changed". */
export const BLOCKS_CHANNEL = 'tempmail_blocks';

/** The SQL test of a json address column against $1: an address (any case), or a domain and its subdomains. */
function senderTest(column: string, byDomain: boolean): string {
  const text = `lower(${column} #>> '{}')`;
  if (!byDomain) return `${text} = $1`;
  const domain = `substring(${text} from '@([^@]*)$')`;
  return `(${domain} = $1 OR right(${domain}, length($1) + 1) = '.' || $1)`;
}

export async function findMessages(pool: pg.Pool, filter: MessageFilter, limit: number): Promise<FoundMessage[]> {
  const sender = filter.sender?.trim().toLowerCase();
  const byDomain = sender !== undefined && !sender.includes('@');
  const where = [
    sender === undefined
      ? '$1::text IS NULL'
      : `(${senderTest('sender_email', byDomain)} OR ${senderTest('envelope_from', byDomain)})`,
    filter.clientIp === undefined ? '$2::text IS NULL' : 'client_ip IS NOT NULL AND client_ip::inet <<= $2::inet',
  ].join(' AND ');
  const rows = await query<MetaRow & { session_id: string }>(
    pool,
    `SELECT session_id, ${META_COLUMNS} FROM tempmail_messages WHERE ${where} ORDER BY received_at DESC, id DESC LIMIT $3`,
    [sender ?? null, filter.clientIp ?? null, limit],
  );
  if (rows.length === 0) return [];
  const sessions = await query<SessionRow>(
    pool,
    `SELECT ${SESSION_COLUMNS} FROM tempmail_sessions WHERE id = ANY($1::text[])`,
    [[...new Set(rows.map((r) => r.session_id))]],
  );
  const byId = new Map(sessions.map((s) => [s.id, sessionOf(s)]));
  // A session deleted between the two queries takes its messages with it.
  return rows.flatMap((r) => {
    const session = byId.get(r.session_id);
    return session ? [{ session, message: metaOf(r) }] : [];
  });
}

export async function listBlocks(pool: pg.Pool): Promise<Block[]> {
  const rows = await query<{ kind: BlockKind; value: string; created_at: Date }>(
    pool,
    'SELECT kind, value, created_at FROM tempmail_blocks ORDER BY created_at, kind, value',
  );
  return rows.map((r) => ({ kind: r.kind, value: r.value, createdAt: r.created_at.getTime() }));
}

export async function putBlock(pool: pg.Pool, block: Block): Promise<boolean> {
  const [row] = await query<{ n: number }>(
    pool,
    `WITH added AS (INSERT INTO tempmail_blocks (kind, value, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT count(*)::int FROM added) AS n, pg_notify($4, '')`,
    [block.kind, block.value, new Date(block.createdAt), BLOCKS_CHANNEL],
  );
  return (row?.n ?? 0) > 0;
}

export async function deleteBlock(pool: pg.Pool, kind: BlockKind, value: string): Promise<boolean> {
  const [row] = await query<{ n: number }>(
    pool,
    `WITH removed AS (DELETE FROM tempmail_blocks WHERE kind = $1 AND value = $2 RETURNING 1)
       SELECT (SELECT count(*)::int FROM removed) AS n, pg_notify($3, '')`,
    [kind, value, BLOCKS_CHANNEL],
  );
  return (row?.n ?? 0) > 0;
}
