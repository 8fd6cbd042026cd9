/**
 * Migration 8 (schema.ts): message ids that a restore from a backup cannot hand out again.
 *
 * Until 7 a session's ids went 1, 2, 3...: a database restored from a dump took up at the dump's last
 * id, and handed out again ids that clients had already seen (for other messages). From 8 a new message's
 * id is the microseconds since 2025-01-01 UTC on the database's clock when it is stored, or one more than
 * the session's last id when that is higher (two messages in one microsecond). The clock is not in the
 * dump: after a restore, ids go on above every id handed out before, as long as the database's clock has
 * not gone back. Ids still only grow within a session (older 1, 2, 3... sort below them), and stay
 * integers clients read as numbers: 14 digits today, 15 from 2028 to 2056 (the client takes up to 15).
 * The columns become bigint, which rewrites the messages table once.
 */
/** The function's body as migration 6 had it but for the id it takes (v_floor) and bigint ids. */
const DELIVER_BATCH = `
  CREATE FUNCTION tempmail_deliver_batch(p_session text[], p_delivery integer[], p_limit integer[])
  RETURNS TABLE (delivery integer, sid text, outcome text, message_id bigint, locked_at double precision, token_hash text)
  LANGUAGE plpgsql AS $fn$
  DECLARE
    v_ids text[];
    v_last bigint[];
    v_held integer[];
    v_hash text[];
    v_at integer;
    v_n integer := coalesce(array_length(p_session, 1), 0);
    v_from integer := 1;
    v_to integer;
    v_full boolean;
    v_limit integer;
    v_floor bigint;
    i integer;
  BEGIN
    SELECT array_agg(l.id), array_agg(l.last_message_id), array_agg(l.message_count), array_agg(l.token_hash)
      INTO v_ids, v_last, v_held, v_hash
      FROM (SELECT t.id, t.last_message_id, t.message_count, t.token_hash FROM tempmail_sessions t
            WHERE t.id = ANY (p_session) ORDER BY t.id FOR UPDATE) l;
    locked_at := extract(epoch FROM clock_timestamp());
    -- The lowest id this batch may take: the microseconds since 2025-01-01 UTC, which no restore rewinds.
    v_floor := floor((locked_at - 1735689600) * 1000000)::bigint;
    WHILE v_from <= v_n LOOP
      v_to := v_from;
      WHILE v_to < v_n AND p_delivery[v_to + 1] = p_delivery[v_from] LOOP v_to := v_to + 1; END LOOP;
      delivery := p_delivery[v_from];
      v_limit := p_limit[delivery + 1];
      v_full := false;
      IF v_limit IS NOT NULL THEN
        FOR i IN v_from..v_to LOOP
          v_at := array_position(v_ids, p_session[i]);
          IF v_at IS NOT NULL AND v_held[v_at] >= v_limit THEN v_full := true; END IF;
        END LOOP;
      END IF;
      FOR i IN v_from..v_to LOOP
        v_at := array_position(v_ids, p_session[i]);
        sid := p_session[i];
        message_id := NULL;
        token_hash := NULL;
        IF v_at IS NULL THEN
          outcome := 'gone';
        ELSIF v_full THEN
          outcome := CASE WHEN v_held[v_at] >= v_limit THEN 'full' ELSE 'held' END;
        ELSE
          v_last[v_at] := greatest(v_last[v_at] + 1, v_floor);
          v_held[v_at] := v_held[v_at] + 1;
          outcome := 'stored';
          message_id := v_last[v_at];
          token_hash := v_hash[v_at];
        END IF;
        RETURN NEXT;
      END LOOP;
      v_from := v_to + 1;
    END LOOP;
    IF v_ids IS NOT NULL THEN
      UPDATE tempmail_sessions t SET last_message_id = u.last
        FROM unnest(v_ids, v_last) AS u(id, last)
        WHERE t.id = u.id AND u.last <> t.last_message_id;
    END IF;
  END
  $fn$;`;

/** The storage cap's version of it (migration 7's, schema.ts), with the same two changes. */
const DELIVER_BATCH_CAPPED = `
  CREATE FUNCTION tempmail_deliver_batch(p_session text[], p_delivery integer[], p_limit integer[],
    p_max_messages bigint[], p_max_bytes bigint[], p_size integer[])
  RETURNS TABLE (delivery integer, sid text, outcome text, message_id bigint, locked_at double precision, token_hash text)
  LANGUAGE plpgsql AS $fn$
  DECLARE
    v_ids text[];
    v_last bigint[];
    v_held integer[];
    v_hash text[];
    v_at integer;
    v_n integer := coalesce(array_length(p_session, 1), 0);
    v_from integer := 1;
    v_to integer;
    v_full boolean;
    v_capped boolean;
    v_copies bigint;
    v_limit integer;
    v_used_n bigint := 0;
    v_used_b bigint := 0;
    v_floor bigint;
    i integer;
  BEGIN
    SELECT array_agg(l.id), array_agg(l.last_message_id), array_agg(l.message_count), array_agg(l.token_hash)
      INTO v_ids, v_last, v_held, v_hash
      FROM (SELECT t.id, t.last_message_id, t.message_count, t.token_hash FROM tempmail_sessions t
            WHERE t.id = ANY (p_session) ORDER BY t.id FOR UPDATE) l;
    IF EXISTS (SELECT 1 FROM unnest(p_max_messages || p_max_bytes) AS c(cap) WHERE c.cap IS NOT NULL) THEN
      PERFORM pg_advisory_xact_lock(7238456003);
      -- A statement of its own: it sees what the lock's previous holder committed.
      SELECT coalesce(sum(u.messages), 0), coalesce(sum(u.bytes), 0) INTO v_used_n, v_used_b FROM tempmail_usage u;
    END IF;
    locked_at := extract(epoch FROM clock_timestamp());
    -- The lowest id this batch may take: the microseconds since 2025-01-01 UTC, which no restore rewinds.
    v_floor := floor((locked_at - 1735689600) * 1000000)::bigint;
    WHILE v_from <= v_n LOOP
      v_to := v_from;
      WHILE v_to < v_n AND p_delivery[v_to + 1] = p_delivery[v_from] LOOP v_to := v_to + 1; END LOOP;
      delivery := p_delivery[v_from];
      v_limit := p_limit[delivery + 1];
      v_full := false;
      v_copies := 0;
      FOR i IN v_from..v_to LOOP
        v_at := array_position(v_ids, p_session[i]);
        IF v_at IS NOT NULL THEN v_copies := v_copies + 1; END IF;
        IF v_limit IS NOT NULL AND v_at IS NOT NULL AND v_held[v_at] >= v_limit THEN v_full := true; END IF;
      END LOOP;
      v_capped := NOT v_full AND (
        v_used_n + v_copies > p_max_messages[delivery + 1] OR
        v_used_b + v_copies * p_size[delivery + 1] > p_max_bytes[delivery + 1]) IS TRUE;
      IF NOT v_full AND NOT v_capped THEN
        v_used_n := v_used_n + v_copies;
        v_used_b := v_used_b + v_copies * p_size[delivery + 1];
      END IF;
      FOR i IN v_from..v_to LOOP
        v_at := array_position(v_ids, p_session[i]);
        sid := p_session[i];
        message_id := NULL;
        token_hash := NULL;
        IF v_at IS NULL THEN
          outcome := 'gone';
        ELSIF v_full THEN
          outcome := CASE WHEN v_held[v_at] >= v_limit THEN 'full' ELSE 'held' END;
        ELSIF v_capped THEN
          outcome := 'capped';
        ELSE
          v_last[v_at] := greatest(v_last[v_at] + 1, v_floor);
          v_held[v_at] := v_held[v_at] + 1;
          outcome := 'stored';
          message_id := v_last[v_at];
          token_hash := v_hash[v_at];
        END IF;
        RETURN NEXT;
      END LOOP;
      v_from := v_to + 1;
    END LOOP;
    IF v_ids IS NOT NULL THEN
      UPDATE tempmail_sessions t SET last_message_id = u.last
        FROM unnest(v_ids, v_last) AS u(id, last)
        WHERE t.id = u.id AND u.last <> t.last_message_id;
    END IF;
  END
  $fn$;`;

/** A Migration of schema.ts (not imported: schema.ts imports this). */
export const MESSAGE_IDS_MIGRATION = {
  version: 8,
  name: 'message ids from the clock, never handed out again after a restore',
  sql: `
    ALTER TABLE tempmail_sessions ALTER COLUMN last_message_id TYPE bigint;
    ALTER TABLE tempmail_messages ALTER COLUMN id TYPE bigint;
    DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[]);
    DROP FUNCTION tempmail_deliver_batch(text[], integer[], integer[], bigint[], bigint[], integer[]);
    ${DELIVER_BATCH}
    ${DELIVER_BATCH_CAPPED}
  `,
};

/** A bigint id as pg hands it (a string) to the number the Store speaks (safe: below 2^53 until 2250). */
export function idOf(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}
