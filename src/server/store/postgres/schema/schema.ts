/**
 * The Postgres store's schema, version by version (migrations.ts applies them). A version once released
 * never changes: what changes the schema is a new version.
 *
 * Every table is prefixed `tempmail_`, so the store can share a database with other applications.
 * Text a message brings (sender, subject, body) is kept in `json` columns, not `text`: Postgres text
 * cannot hold NUL, and a hostile subject can; `json` keeps the string exactly as JSON.stringify escaped it.
 */
import { MESSAGE_IDS_MIGRATION } from './message-ids';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, messages, create-session hits, deliveries',
    sql: `
      CREATE TABLE tempmail_sessions (
        id text PRIMARY KEY,
        token_hash text NOT NULL,
        email text NOT NULL,
        address_key text NOT NULL,
        local_part text NOT NULL,
        domain text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('domain', 'extmail')),
        extmail_account_id integer,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        -- The highest message id ever handed out here: ids are never reused, not even after a delete.
        last_message_id integer NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX tempmail_sessions_token ON tempmail_sessions (token_hash);
      CREATE INDEX tempmail_sessions_address ON tempmail_sessions (address_key, created_at DESC);
      CREATE INDEX tempmail_sessions_expiry ON tempmail_sessions (expires_at);

      -- The primary key serves the inbox query (one session, by id) and the cascade on a session's delete.
      CREATE TABLE tempmail_messages (
        session_id text NOT NULL REFERENCES tempmail_sessions (id) ON DELETE CASCADE,
        id integer NOT NULL,
        received_at timestamptz NOT NULL,
        size integer NOT NULL,
        sender_name json NOT NULL,
        sender_email json NOT NULL,
        subject json NOT NULL,
        attachment_list json NOT NULL,
        body json NOT NULL,
        raw bytea NOT NULL,
        attachments bytea[] NOT NULL,
        PRIMARY KEY (session_id, id)
      );

      CREATE TABLE tempmail_create_hits (
        client_key text NOT NULL,
        at timestamptz NOT NULL
      );
      CREATE INDEX tempmail_create_hits_key ON tempmail_create_hits (client_key, at);
      CREATE INDEX tempmail_create_hits_at ON tempmail_create_hits (at);

      -- One row per stored delivery, kept an hour: after a lost COMMIT reply, it says whether it happened.
      CREATE TABLE tempmail_deliveries (
        id uuid PRIMARY KEY,
        at timestamptz NOT NULL
      );
      CREATE INDEX tempmail_deliveries_at ON tempmail_deliveries (at);
    `,
  },
  {
    version: 2,
    name: 'fetch cursors and statuses of external mail accounts',
    sql: `
      -- Where fetching each folder of an external account (IMAP) has got: its UIDVALIDITY and the highest
      -- UID handled. Both are unsigned 32-bit numbers in IMAP, hence bigint.
      CREATE TABLE tempmail_fetch_cursors (
        account text NOT NULL,
        folder text NOT NULL,
        uid_validity bigint NOT NULL,
        last_uid bigint NOT NULL,
        PRIMARY KEY (account, folder)
      );
      -- How fetching each account goes, as the instance holding its claim last said (for GET /domains
      -- of the instances standing by).
      CREATE TABLE tempmail_fetch_status (
        account text PRIMARY KEY,
        active boolean NOT NULL,
        reason text NOT NULL,
        at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'when a fetched folder was renumbered',
    sql: `
      -- When the fetcher found the folder's UIDVALIDITY in place of another: until a session lifetime
      -- later, each message of the folder is checked against the inboxes (it may be stored already).
      ALTER TABLE tempmail_fetch_cursors ADD COLUMN renumbered_at timestamptz;
    `,
  },
  {
    version: 4,
    name: 'per-client rates of every kind, counted in one call',
    sql: `
      -- Every per-client rate (create-session, HTTP requests, SMTP messages and recipients) is counted
      -- here now, one row a hit: unlogged, as a count lost with a crash costs nothing and a hit then
      -- writes no WAL (its commit waits for no disk).
      ALTER TABLE tempmail_create_hits SET UNLOGGED;
      -- Counts p_cost hits (all or none) of p_key at p_now under "at most p_limit in any p_window_ms": 0
      -- when allowed (and counted), else the whole seconds until they fit (not counted). The advisory
      -- lock makes the count and the insert one step against every other hit of the key, in every instance.
      CREATE OR REPLACE FUNCTION tempmail_rate_hit(p_key text, p_now timestamptz, p_window_ms integer, p_limit integer, p_cost integer DEFAULT 1)
      RETURNS integer LANGUAGE plpgsql AS $fn$
      DECLARE
        n integer;
        freeing timestamptz;
        win interval := p_window_ms * interval '1 millisecond';
      BEGIN
        PERFORM pg_advisory_xact_lock(7239, hashtext(p_key));
        SELECT count(*)::integer INTO n FROM tempmail_create_hits WHERE client_key = p_key AND at > p_now - win;
        IF n + p_cost > p_limit THEN
          -- The hit that must leave the window before p_cost more fit (the oldest, for one).
          SELECT at INTO freeing FROM tempmail_create_hits WHERE client_key = p_key AND at > p_now - win
            ORDER BY at OFFSET least(n - 1, greatest(0, n + p_cost - p_limit - 1)) LIMIT 1;
          RETURN greatest(1, ceil(extract(epoch FROM (coalesce(freeing, p_now) + win - p_now)))::integer);
        END IF;
        INSERT INTO tempmail_create_hits (client_key, at) SELECT p_key, p_now FROM generate_series(1, p_cost);
        RETURN 0;
      END
      $fn$;
    `,
  },
  {
    version: 5,
    name: 'where each message came from, and blocks',
    sql: `
      -- The SMTP client's address and envelope sender of each message, for the admin API (null for mail
      -- fetched over IMAP and for mail stored before this version). The sender is json, as the others.
      ALTER TABLE tempmail_messages ADD COLUMN client_ip text, ADD COLUMN envelope_from json;
      CREATE INDEX tempmail_messages_client_ip ON tempmail_messages (client_ip) WHERE client_ip IS NOT NULL;
      -- Senders, sender domains and client addresses (or ranges) the service refuses mail from.
      CREATE TABLE tempmail_blocks (
        kind text NOT NULL CHECK (kind IN ('sender', 'domain', 'ip')),
        value text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (kind, value)
      );
    `,
  },
  {
    version: 6,
    name: 'each session counts its messages; deliveries decided in batches',
    sql: `
      -- How many messages the session holds, kept by the database itself (the triggers below) whoever
      -- inserts or deletes, an instance of an older tempmail-tui during an upgrade included. With
      -- last_message_id it is the inbox's version (one indexed read per check-mail), and it is what the
      -- inbox limit counts under the session's row lock (no count over the messages at each delivery).
      ALTER TABLE tempmail_sessions ADD COLUMN message_count integer NOT NULL DEFAULT 0;
      UPDATE tempmail_sessions s SET message_count = c.n
        FROM (SELECT session_id, count(*)::integer AS n FROM tempmail_messages GROUP BY session_id) c
        WHERE s.id = c.session_id;
      -- Once per statement, not per row: a delivery to many sessions updates each session once.
      CREATE FUNCTION tempmail_count_messages() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE tempmail_sessions s
          SET message_count = s.message_count + CASE WHEN TG_OP = 'INSERT' THEN c.n ELSE -c.n END
          FROM (SELECT session_id, count(*)::integer AS n FROM changed GROUP BY session_id) c
          WHERE s.id = c.session_id;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER tempmail_messages_counted_in AFTER INSERT ON tempmail_messages
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tempmail_count_messages();
      CREATE TRIGGER tempmail_messages_counted_out AFTER DELETE ON tempmail_messages
        REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tempmail_count_messages();

      -- A batch's record keeps what it decided: should its answer be lost, the instance reads it here.
      ALTER TABLE tempmail_deliveries ADD COLUMN decided json;

      -- Decides a batch of deliveries (postgres/deliver.ts) under the row locks of its sessions, taken in
      -- id order: p_session[i] is a copy delivery p_delivery[i] (0-based, ascending) asks for, p_limit[k]
      -- delivery k's inbox limit (NULL: none). In arrival order, against the counts as the batch leaves
      -- them, each delivery is stored into all its present sessions or, when one of them is full, into
      -- none: a row per copy says 'stored' (with the id taken), 'full', 'held' (another of its sessions
      -- is full) or 'gone' (no such session). The ids taken are written back here; the caller inserts
      -- the messages in the same statement. locked_at (epoch seconds) is when the locks were had: the
      -- caller measures how long they are held with it. token_hash (of a copy stored) is what the
      -- caller's mail notices name the session by (mail-notices.ts).
      CREATE FUNCTION tempmail_deliver_batch(p_session text[], p_delivery integer[], p_limit integer[])
      RETURNS TABLE (delivery integer, sid text, outcome text, message_id integer, locked_at double precision, token_hash text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_ids text[];
        v_last integer[];
        v_held integer[];
        v_hash text[];
        v_at integer;
        v_n integer := coalesce(array_length(p_session, 1), 0);
        v_from integer := 1;
        v_to integer;
        v_full boolean;
        v_limit integer;
        i integer;
      BEGIN
        SELECT array_agg(l.id), array_agg(l.last_message_id), array_agg(l.message_count), array_agg(l.token_hash)
          INTO v_ids, v_last, v_held, v_hash
          FROM (SELECT t.id, t.last_message_id, t.message_count, t.token_hash FROM tempmail_sessions t
                WHERE t.id = ANY (p_session) ORDER BY t.id FOR UPDATE) l;
        locked_at := extract(epoch FROM clock_timestamp());
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
              v_last[v_at] := v_last[v_at] + 1;
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
      $fn$;
    `,
  },
  {
    version: 7,
    name: 'what is stored in all, for the storage cap',
    sql: `
      -- The messages stored in all and their bytes as received (size), for the storage cap and the
      -- metrics: kept by the triggers that keep the sessions' counts, in the same transaction as the
      -- insert or delete, whoever makes it (restarts, the purge and older instances included: no drift).
      -- In 16 slots, each connection adding to its own (pid % 16): with no cap in force, deliveries on
      -- different connections never queue on one row. The total is the sum of the slots.
      CREATE TABLE tempmail_usage (
        slot integer PRIMARY KEY,
        messages bigint NOT NULL,
        bytes bigint NOT NULL
      );
      -- Counted once from the messages, with no insert or delete meanwhile (another instance's).
      LOCK TABLE tempmail_messages IN SHARE MODE;
      INSERT INTO tempmail_usage (slot, messages, bytes) SELECT g, 0, 0 FROM generate_series(0, 15) g;
      UPDATE tempmail_usage SET messages = c.n, bytes = c.b
        FROM (SELECT count(*) AS n, coalesce(sum(size), 0) AS b FROM tempmail_messages) c WHERE slot = 0;
      CREATE OR REPLACE FUNCTION tempmail_count_messages() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        v_sign integer := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
        v_n bigint;
        v_b bigint;
      BEGIN
        UPDATE tempmail_sessions s
          SET message_count = s.message_count + v_sign * c.n
          FROM (SELECT session_id, count(*)::integer AS n FROM changed GROUP BY session_id) c
          WHERE s.id = c.session_id;
        SELECT count(*), coalesce(sum(size), 0) INTO v_n, v_b FROM changed;
        IF v_n > 0 THEN
          UPDATE tempmail_usage SET messages = messages + v_sign * v_n, bytes = bytes + v_sign * v_b
            WHERE slot = pg_backend_pid() % 16;
        END IF;
        RETURN NULL;
      END
      $fn$;

      -- tempmail_deliver_batch with the storage cap (limits/storage-cap.ts): p_max_messages[k] and
      -- p_max_bytes[k] delivery k's caps (NULL: none), p_size[k] its size. Under the cap lock, taken after the
      -- sessions' row locks and held to COMMIT, the total stored is read (every instance that enforces a
      -- cap takes the lock before it stores, so none has stored uncommitted meanwhile) and each delivery
      -- whose copies would pass a cap is decided 'capped' for all its present sessions (nothing stored for
      -- it), the others count against the total as the batch leaves it. Without a cap nothing is locked:
      -- only the 3-argument version's work.
      CREATE FUNCTION tempmail_deliver_batch(p_session text[], p_delivery integer[], p_limit integer[],
        p_max_messages bigint[], p_max_bytes bigint[], p_size integer[])
      RETURNS TABLE (delivery integer, sid text, outcome text, message_id integer, locked_at double precision, token_hash text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_ids text[];
        v_last integer[];
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
              v_last[v_at] := v_last[v_at] + 1;
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
      $fn$;
    `,
  },
  MESSAGE_IDS_MIGRATION,
];
