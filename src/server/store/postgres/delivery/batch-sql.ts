/**
 * The one statement of a batch of deliveries (deliver.ts): the decision, the record, the
 * copies and the notices in one round trip, so one transaction and one COMMIT.
 */
import { notifySql } from '../mail-notices';

/** Values each message brings to deliverBatchStatement (messageValues). */
const PER_MESSAGE = 11;
/** The statement's values before the messages' ($1..$8, see deliverBatchStatement). */
const BEFORE_MESSAGES = 8;

/**
 * One statement for a whole batch of deliveries (deliver.ts), its own transaction: the
 * decision under the sessions' row locks (tempmail_deliver_batch, migration 6: $1 the copies' sessions,
 * $2 their deliveries, $3 the deliveries' limits; $6, $7 and $8 their storage caps of messages and
 * bytes and their sizes: migration 7), the batch's record ($4, with a copy of the decision
 * for when the answer is lost), the stored copies, each message's values once however many sessions
 * take it (`messages` rows of PER_MESSAGE values from $9 on), and the mail notices for the other
 * instances, from this one ($5): one pg_notify per session with new mail however many messages it took,
 * which Postgres hands out at COMMIT only (mail-notices.ts). It answers one row per copy with its
 * outcome (and the id it took). The messages' counts follow by trigger.
 */
export function deliverBatchStatement(messages: number): string {
  const values = Array.from({ length: messages }, (_, k) => {
    const at = BEFORE_MESSAGES + 1 + k * PER_MESSAGE;
    const p = (i: number) => `$${at + i}`;
    return `(${k}, ${p(0)}::timestamptz, ${p(1)}::integer, ${p(2)}::json, ${p(3)}::json, ${p(4)}::json, ${p(5)}::json, ${p(6)}::json, ${p(7)}::bytea, ${p(8)}::bytea[], ${p(9)}::text, ${p(10)}::json)`;
  });
  // A SELECT in WITH runs only when read: the last line reads `notified` (once, before any row), so the
  // notices are sent whenever the statement answers.
  return `
    WITH decided AS MATERIALIZED (
      SELECT delivery, sid, outcome, message_id, locked_at, token_hash
      FROM tempmail_deliver_batch($1::text[], $2::integer[], $3::integer[], $6::bigint[], $7::bigint[], $8::integer[])
    ), recorded AS (
      INSERT INTO tempmail_deliveries (id, at, decided)
      SELECT $4, now(), coalesce(json_agg(d), '[]') FROM (SELECT delivery, sid, outcome, message_id FROM decided) d
    ), written AS (
      INSERT INTO tempmail_messages
        (session_id, id, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments, client_ip, envelope_from)
      SELECT d.sid, d.message_id, m.received_at, m.size, m.sender_name, m.sender_email, m.subject, m.attachment_list, m.body, m.raw, m.attachments,
        m.client_ip, m.envelope_from
      FROM decided d
      JOIN (VALUES ${values.join(', ')})
        AS m(k, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments, client_ip, envelope_from)
        ON m.k = d.delivery
      WHERE d.outcome = 'stored'
    ), notified AS (
      ${notifySql("SELECT DISTINCT token_hash FROM decided WHERE outcome = 'stored'", '$5::text')}
    )
    SELECT delivery, sid, outcome, message_id, locked_at FROM decided WHERE (SELECT count(*) FROM notified) >= 0`;
}
