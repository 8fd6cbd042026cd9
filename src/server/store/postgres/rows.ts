/**
 * Rows of the Postgres store to the Store's records and back. Times are timestamptz (Date in pg, epoch
 * ms in a record); message text sits in json columns (see schema.ts), so each string is sent
 * JSON-encoded and pg hands it back parsed.
 */
import { idOf } from './schema/message-ids';
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
  return [
    s.id,
    s.tokenHash,
    s.email,
    s.addressKey,
    s.localPart,
    s.domain,
    s.kind,
    s.extmailAccountId,
    new Date(s.createdAt),
    new Date(s.expiresAt),
  ];
}

/** The listing columns of tempmail_messages. */
export const META_COLUMNS =
  'id, received_at, size, sender_name, sender_email, subject, attachment_list, client_ip, envelope_from';

export interface MetaRow {
  /** bigint (migration 8): a string from pg. */
  id: number | string;
  received_at: Date;
  size: number;
  sender_name: string;
  sender_email: string;
  subject: string;
  attachment_list: StoredAttachmentMeta[];
  client_ip: string | null;
  envelope_from: string | null;
}

export function metaOf(row: MetaRow): StoredMessageMeta {
  return {
    id: idOf(row.id),
    senderName: row.sender_name,
    senderEmail: row.sender_email,
    subject: row.subject,
    receivedAt: row.received_at.getTime(),
    size: row.size,
    attachments: row.attachment_list,
    ...(row.client_ip !== null ? { clientIp: row.client_ip } : {}),
    ...(row.envelope_from !== null ? { envelopeFrom: row.envelope_from } : {}),
  };
}

export function messageOf(row: MetaRow & { body: Omit<StoredMessage, keyof StoredMessageMeta> }): StoredMessage {
  const { to, cc, text, html, headers, parseOnRead } = row.body;
  return { ...metaOf(row), to, cc, text, html, headers, ...(parseOnRead === true ? { parseOnRead } : {}) };
}

/**
 * The per-message values of an insert, in the order of one message's row of deliverBatchStatement's
 * VALUES: received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments,
 * client_ip, envelope_from.
 */
export function messageValues(m: NewMessage): unknown[] {
  const attachmentList: StoredAttachmentMeta[] = m.attachments.map((a, i) => ({
    id: i + 1,
    filename: a.filename,
    contentType: a.contentType,
    size: a.bytes.length,
  }));
  const body = {
    to: m.to,
    cc: m.cc,
    text: m.text,
    html: m.html,
    headers: m.headers,
    ...(m.parseOnRead ? { parseOnRead: true } : {}),
  };
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
    m.clientIp ?? null,
    m.envelopeFrom === undefined ? null : JSON.stringify(m.envelopeFrom),
  ];
}
