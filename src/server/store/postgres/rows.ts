/**
 * Rows of the Postgres store to the Store's records and back. Times are timestamptz (Date in pg, epoch
 * ms in a record); message text sits in json columns (see migrations.ts), so each string is sent
 * JSON-encoded and pg hands it back parsed.
 */
import type { NewMessage, StoredAttachmentMeta, StoredMessage, StoredMessageMeta, StoredSession } from '../store';

/** The columns of tempmail_sessions a record needs, in select order. */
export const SESSION_COLUMNS =
  'id, token_hash, email, address_key, local_part, domain, kind, extmail_account_id, created_at, expires_at';

export interface SessionRow {
  id: string;
  token_hash: string;
  email: string;
  address_key: string;
  local_part: string;
  domain: string;
  kind: 'domain' | 'extmail';
  extmail_account_id: number | null;
  created_at: Date;
  expires_at: Date;
}

export function sessionOf(row: SessionRow): StoredSession {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    email: row.email,
    addressKey: row.address_key,
    localPart: row.local_part,
    domain: row.domain,
    kind: row.kind,
    extmailAccountId: row.extmail_account_id,
    createdAt: row.created_at.getTime(),
    expiresAt: row.expires_at.getTime(),
  };
}

/** The values of SESSION_COLUMNS for a record ($1..$10). */
export function sessionValues(s: StoredSession): unknown[] {
  return [s.id, s.tokenHash, s.email, s.addressKey, s.localPart, s.domain, s.kind, s.extmailAccountId, new Date(s.createdAt), new Date(s.expiresAt)];
}

/** The listing columns of tempmail_messages. */
export const META_COLUMNS = 'id, received_at, size, sender_name, sender_email, subject, attachment_list';

export interface MetaRow {
  id: number;
  received_at: Date;
  size: number;
  sender_name: string;
  sender_email: string;
  subject: string;
  attachment_list: StoredAttachmentMeta[];
}

export function metaOf(row: MetaRow): StoredMessageMeta {
  return {
    id: row.id,
    senderName: row.sender_name,
    senderEmail: row.sender_email,
    subject: row.subject,
    receivedAt: row.received_at.getTime(),
    size: row.size,
    attachments: row.attachment_list,
  };
}

export function messageOf(row: MetaRow & { body: Omit<StoredMessage, keyof StoredMessageMeta> }): StoredMessage {
  const { to, cc, text, html, headers } = row.body;
  return { ...metaOf(row), to, cc, text, html, headers };
}

/**
 * The per-message values of an insert, in the order of one message's row of insertBatch's VALUES:
 * received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments.
 */
export function messageValues(m: NewMessage): unknown[] {
  const attachmentList: StoredAttachmentMeta[] = m.attachments.map((a, i) => ({
    id: i + 1,
    filename: a.filename,
    contentType: a.contentType,
    size: a.bytes.length,
  }));
  const body = { to: m.to, cc: m.cc, text: m.text, html: m.html, headers: m.headers };
  return [
    new Date(m.receivedAt),
    m.raw.length,
    JSON.stringify(m.senderName),
    JSON.stringify(m.senderEmail),
    JSON.stringify(m.subject),
    JSON.stringify(attachmentList),
    JSON.stringify(body),
    m.raw,
    m.attachments.map((a) => a.bytes),
  ];
}

/** Values each message brings to deliverBatchStatement (messageValues). */
const PER_MESSAGE = 9;

/**
 * One statement for a whole batch of deliveries (postgres/deliver.ts), its own transaction: the
 * decision under the sessions' row locks (tempmail_deliver_batch, migration 5: $1 the copies' sessions,
 * $2 their deliveries, $3 the deliveries' limits), the batch's record ($4, with a copy of the decision
 * for when the answer is lost), and the stored copies, each
 * message's values once however many sessions take it: `messages` rows of PER_MESSAGE values from $5 on.
 * It answers one row per copy with its outcome (and the id it took). The messages' counts follow by trigger.
 */
export function deliverBatchStatement(messages: number): string {
  const values = Array.from({ length: messages }, (_, k) => {
    const at = 5 + k * PER_MESSAGE;
    const p = (i: number) => `$${at + i}`;
    return `(${k}, ${p(0)}::timestamptz, ${p(1)}::integer, ${p(2)}::json, ${p(3)}::json, ${p(4)}::json, ${p(5)}::json, ${p(6)}::json, ${p(7)}::bytea, ${p(8)}::bytea[])`;
  });
  return `
    WITH decided AS MATERIALIZED (
      SELECT delivery, sid, outcome, message_id, locked_at FROM tempmail_deliver_batch($1::text[], $2::integer[], $3::integer[])
    ), recorded AS (
      INSERT INTO tempmail_deliveries (id, at, decided) SELECT $4, now(), coalesce(json_agg(d), '[]') FROM decided d
    ), written AS (
      INSERT INTO tempmail_messages
        (session_id, id, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments)
      SELECT d.sid, d.message_id, m.received_at, m.size, m.sender_name, m.sender_email, m.subject, m.attachment_list, m.body, m.raw, m.attachments
      FROM decided d
      JOIN (VALUES ${values.join(', ')}) AS m(k, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments)
        ON m.k = d.delivery
      WHERE d.outcome = 'stored'
    )
    SELECT delivery, sid, outcome, message_id, locked_at FROM decided`;
}
