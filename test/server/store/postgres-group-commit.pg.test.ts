/**
 * Group commit on Postgres (src/server/store/postgres/delivery/delivery-queue.ts): deliveries that arrive together
 * share one transaction and one COMMIT, each still decided on its own, in arrival order, against the
 * inbox limit as the batch leaves it. The message counts the limit and check-mail's version read are
 * kept by the database (migration 6), whoever writes. The other instances hear of a batch's mail by one
 * notice per session with new mail, sent by Postgres at the batch's COMMIT.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { BatchReport } from '../../../src/server/store/postgres/delivery/deliver';
import { MAIL_CHANNEL, readNotice } from '../../../src/server/store/postgres/mail-notices';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

async function openStore(options: { batch?: { deliveries?: number; slowMs?: number } } = {}) {
  const { url } = await freshDatabase(cleanup);
  const batches: BatchReport[] = [];
  const store = cleanup.defer(
    new PostgresStore({ url, poolSize: 4, onBatch: (r) => batches.push(r), ...options }),
    (s) => s.close(),
  );
  await store.open();
  return { url, store, batches, db: inspect(cleanup, url) };
}

/**
 * A session's messages in id order as "<n> <subject>", n its place (1 for the lowest id): ids come from
 * the clock (migration 8), so the order they were taken in is what a test can say.
 */
const subjects = async (store: PostgresStore, id: string) =>
  (await store.listMessages(id)).map((m, i) => `${i + 1} ${m.subject}`);

/** Each id's place among `ids` (1 for the lowest): [1, 2, 3...] when they were taken in this order. */
const places = (ids: number[]) => ids.map((id) => [...ids].sort((x, y) => x - y).indexOf(id) + 1);

/** The inbox version (inbox.ts) of a session holding `n` messages: its last id and n. */
const versionOf = async (store: PostgresStore, sessionId: string, n: number) =>
  `${(await store.listMessages(sessionId)).at(-1)?.id ?? 0}.${n}`;

const hex = () => randomBytes(32).toString('hex');

/**
 * Listens for mail notices as another instance would; the function returns what was heard up to now
 * (a notice of our own, sent then, goes out after every one committed before it).
 */
async function listen(url: string, db: pg.Pool): Promise<() => Promise<string[]>> {
  const listener = cleanup.defer(await inspect(cleanup, url).connect(), (c) => c.release());
  const heard: string[] = [];
  listener.on('notification', (n: pg.Notification) => heard.push(n.payload ?? ''));
  await listener.query(`LISTEN ${MAIL_CHANNEL}`);
  return async () => {
    const mark = `mark ${heard.length} ${Math.random()}`;
    await db.query('SELECT pg_notify($1, $2)', [MAIL_CHANNEL, mark]);
    await waitFor(() => heard.includes(mark));
    return heard.splice(0).filter((p) => !p.startsWith('mark '));
  };
}

describe('group commit on Postgres', () => {
  it('stores deliveries that arrive together in one transaction, in arrival order', async () => {
    const { store, batches, db } = await openStore();
    const a = sessionRecord();
    const b = sessionRecord();
    await store.putSession(a);
    await store.putSession(b);
    const outcomes = await Promise.all(
      // Limits of any size: past what the database's integer holds is no limit at all.
      Array.from({ length: 10 }, (_, i) =>
        store.deliver(
          i % 3 === 0 ? [a.id, b.id] : [a.id],
          newMessage({ subject: `m${i}` }),
          i % 2 ? 100 : Number.MAX_SAFE_INTEGER,
        ),
      ),
    );
    expect(places(outcomes.map((o) => o.stored.get(a.id)!.id))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await subjects(store, a.id)).toEqual(Array.from({ length: 10 }, (_, i) => `${i + 1} m${i}`));
    expect(await subjects(store, b.id)).toEqual(['1 m0', '2 m3', '3 m6', '4 m9']);
    // One batch: one transaction, one record of it, one lock hold for all ten.
    expect(batches).toEqual([{ deliveries: 10, rows: 14, lockMs: expect.any(Number) }]);
    expect((await db.query('SELECT count(*)::int AS n FROM tempmail_deliveries')).rows[0].n).toBe(1);
    expect(await store.countMessages(a.id)).toBe(10);
    expect(await store.inboxVersion(b.id)).toBe(await versionOf(store, b.id, 4));
  });

  it('keeps the inbox limit exact inside a batch: the first to arrive are stored, the rest are full', async () => {
    const { store, batches } = await openStore();
    const s = sessionRecord();
    const other = sessionRecord();
    await store.putSession(s);
    await store.putSession(other);
    await store.addMessage(s.id, newMessage({ subject: 'first' }));
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.deliver(i === 6 ? [other.id, s.id] : [s.id], newMessage({ subject: `m${i}` }), 4),
      ),
    );
    expect(outcomes.map((o) => (o.full.length > 0 ? 'full' : 'stored'))).toEqual([
      'stored',
      'stored',
      'stored',
      'full',
      'full',
      'full',
      'full',
      'full',
    ]);
    // All or nothing per delivery: the one for both sessions stored for neither.
    expect(outcomes[6]).toEqual({ stored: new Map(), full: [s.id], gone: [] });
    expect(await subjects(store, s.id)).toEqual(['1 first', '2 m0', '3 m1', '4 m2']);
    expect(await subjects(store, other.id)).toEqual([]);
    expect(batches.at(-1)).toMatchObject({ deliveries: 8, rows: 3 });
  });

  it('gives each delivery of a batch its own outcome: gone sessions, a full inbox and a refused message cost the others nothing', async () => {
    const { store, batches } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    // A time before 4713 BC: the database refuses the batch's statement for its data (22008), then
    // each is tried alone. Its transaction rolled back, so it took no id.
    const bad = newMessage({ subject: 'bad', receivedAt: -8.64e15 });
    const results = await Promise.allSettled([
      store.deliver([s.id], newMessage({ subject: 'a' }), 10),
      store.deliver([s.id], bad, 10),
      store.deliver(['gone'], newMessage({ subject: 'nobody' }), 10),
      store.deliver([s.id], newMessage({ subject: 'b' }), 10),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: expect.stringMatching(/^22/) });
    expect((results[2] as PromiseFulfilledResult<unknown>).value).toEqual({
      stored: new Map(),
      full: [],
      gone: ['gone'],
    });
    expect(await subjects(store, s.id)).toEqual(['1 a', '2 b']);
    // The batch of four failed whole; tried one by one, three committed (the bad one failed alone).
    expect(batches.map((b) => b.deliveries)).toEqual([1, 1, 1]);
  });

  it('lets a batch to other sessions go while one waits for its locks, and keeps each inbox in arrival order', async () => {
    const { store, db } = await openStore();
    const a = sessionRecord();
    const b = sessionRecord();
    await store.putSession(a);
    await store.putSession(b);
    // Another transaction holds a's row: a batch to a waits in the database.
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR UPDATE', [a.id]);
    const done: string[] = [];
    const first = store.deliver([a.id], newMessage({ subject: 'a first' }), 10).then((r) => {
      done.push('a first');
      return r;
    });
    await waitFor(
      async () =>
        (
          await db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tempmail_deliver_batch%'",
          )
        ).rowCount === 1,
    );
    // A later delivery to a waits behind the first (it must not take an id before it); b's goes at once.
    const second = store.deliver([a.id], newMessage({ subject: 'a second' }), 10).then((r) => {
      done.push('a second');
      return r;
    });
    const toB = await store.deliver([b.id], newMessage({ subject: 'b' }), 10);
    expect((await store.listMessages(b.id)).map((m) => m.id)).toEqual([toB.stored.get(b.id)!.id]);
    expect(done).toEqual([]);
    await holder.query('ROLLBACK');
    holder.release();
    expect((await first).stored.get(a.id)!.id).toBeLessThan((await second).stored.get(a.id)!.id);
    expect(done).toEqual(['a first', 'a second']);
    expect(await subjects(store, a.id)).toEqual(['1 a first', '2 a second']);
  });

  it('holds deliveries to other sessions for the next batch while the one in the database is quick', async () => {
    // A batch "quick" for a minute: the others wait for it and then go together, in one batch.
    const { store, batches, db } = await openStore({ batch: { slowMs: 60_000 } });
    const [a, b, c] = [sessionRecord(), sessionRecord(), sessionRecord()];
    for (const s of [a, b, c]) await store.putSession(s);
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR UPDATE', [a.id]);
    const first = store.deliver([a.id], newMessage({ subject: 'a' }), 10);
    await waitFor(
      async () =>
        (
          await db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tempmail_deliver_batch%'",
          )
        ).rowCount === 1,
    );
    const others = [
      store.deliver([b.id], newMessage({ subject: 'b' }), 10),
      store.deliver([c.id], newMessage({ subject: 'c' }), 10),
      store.deliver([b.id, c.id], newMessage({ subject: 'bc' }), 10),
    ];
    await holder.query('ROLLBACK');
    holder.release();
    await first;
    await Promise.all(others);
    expect(batches.map((r) => r.deliveries)).toEqual([1, 3]);
    expect(await subjects(store, b.id)).toEqual(['1 b', '2 bc']);
    expect(await subjects(store, c.id)).toEqual(['1 c', '2 bc']);
  });

  it('one at a time with batches of one (grouping off)', async () => {
    const { store, batches, db } = await openStore({ batch: { deliveries: 1 } });
    const s = sessionRecord();
    await store.putSession(s);
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.deliver([s.id], newMessage({ subject: `m${i}` }), 10)));
    expect(batches.map((b) => b.deliveries)).toEqual([1, 1, 1, 1, 1]);
    expect((await db.query('SELECT count(*)::int AS n FROM tempmail_deliveries')).rows[0].n).toBe(5);
    expect(await subjects(store, s.id)).toEqual(['1 m0', '2 m1', '3 m2', '4 m3', '5 m4']);
  });

  it('counts messages an older instance inserts or deletes (the count is kept by trigger)', async () => {
    const { store, db } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    const first = await store.addMessage(s.id, newMessage());
    const v1 = await store.inboxVersion(s.id);
    // What tempmail-tui before migration 6 ran for a delivery and a delete.
    await db.query(
      `WITH bumped AS (UPDATE tempmail_sessions SET last_message_id = last_message_id + 1 WHERE id = $1 RETURNING id, last_message_id)
      INSERT INTO tempmail_messages (session_id, id, received_at, size, sender_name, sender_email, subject, attachment_list, body, raw, attachments, client_ip, envelope_from)
      SELECT id, last_message_id, now(), 1, '""', '""', '"old"', '[]', '{}', '\\x00', '{}', '192.0.2.1', '""' FROM bumped`,
      [s.id],
    );
    expect(await store.countMessages(s.id)).toBe(2);
    const v2 = await store.inboxVersion(s.id);
    expect(v2).toBe(await versionOf(store, s.id, 2));
    expect((await store.deliver([s.id], newMessage(), 2)).full).toEqual([s.id]);
    await db.query('DELETE FROM tempmail_messages WHERE session_id = $1 AND id = $2', [s.id, first.id]);
    expect(await store.countMessages(s.id)).toBe(1);
    expect([v1, v2]).not.toContain(await store.inboxVersion(s.id));
  });

  it('tells the other instances once per session with new mail, at the COMMIT of the batch, never for one rolled back', async () => {
    const { url, store, db } = await openStore();
    const [a, b, full] = [
      sessionRecord({ tokenHash: hex() }),
      sessionRecord({ tokenHash: hex() }),
      sessionRecord({ tokenHash: hex() }),
    ];
    for (const s of [a, b, full]) await store.putSession(s);
    await store.addMessage(full.id, newMessage());
    const heardSoFar = await listen(url, db);
    // Another transaction holds a's row: the batch waits in the database, and nothing is told yet.
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tempmail_sessions WHERE id = $1 FOR UPDATE', [a.id]);
    const batch = Promise.all([
      ...Array.from({ length: 5 }, () => store.deliver([a.id], newMessage(), 10)),
      store.deliver([a.id, b.id], newMessage(), 10),
      store.deliver([b.id], newMessage(), 10),
      store.deliver([full.id], newMessage(), 1),
      store.deliver(['gone'], newMessage(), 10),
    ]);
    await waitFor(
      async () =>
        (
          await db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%tempmail_deliver_batch%'",
          )
        ).rowCount === 1,
    );
    expect(await heardSoFar()).toEqual([]);
    await holder.query('ROLLBACK');
    holder.release();
    expect((await batch).map((d) => d.stored.size)).toEqual([1, 1, 1, 1, 1, 2, 1, 0, 0]);
    // One notice for the batch, each session with new mail in it once (the full one and the gone one not).
    const notices = await heardSoFar();
    expect(notices).toHaveLength(1);
    expect(readNotice(notices[0], 'another instance').sort()).toEqual([a.tokenHash, b.tokenHash].sort());
    expect(readNotice(notices[0], JSON.parse(notices[0]!).from)).toEqual([]);
    // A batch the database refuses rolls back and tells nothing; its good delivery, tried alone, tells.
    const results = await Promise.allSettled([
      store.deliver([b.id], newMessage(), 10),
      store.deliver([a.id], newMessage({ receivedAt: -8.64e15 }), 10),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((await heardSoFar()).map((p) => readNotice(p, 'another instance'))).toEqual([[b.tokenHash]]);
  });

  it("names at most 100 sessions a notice, so each stays under Postgres' 8000 bytes", async () => {
    const { url, store, db } = await openStore();
    const many = Array.from({ length: 150 }, () => sessionRecord({ tokenHash: hex() }));
    for (const s of many) await store.putSession(s);
    const heardSoFar = await listen(url, db);
    expect(
      (
        await store.deliver(
          many.map((s) => s.id),
          newMessage(),
          10,
        )
      ).stored.size,
    ).toBe(150);
    const notices = await heardSoFar();
    expect(notices.map((p) => readNotice(p, 'another instance').length).sort((x, y) => y - x)).toEqual([100, 50]);
    expect(notices.every((p) => p.length < 8000)).toBe(true);
    expect(new Set(notices.flatMap((p) => readNotice(p, 'another instance')))).toEqual(
      new Set(many.map((s) => s.tokenHash)),
    );
  });
});
