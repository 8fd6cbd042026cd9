/**
 * RCPT's recent answers on Postgres (src/server/store/postgres/recipients/recent-recipients.ts) with the real
 * store, a second instance on the same database and the mail notices between them: an address found is
 * answered again without a query only while the store hears the notices, and forgotten as soon as a
 * notice says its session is gone (deleted, taken over, swept) or got mail elsewhere, or the store itself
 * changes it. The stores here keep an answer for a minute unless the test is about that time, so an
 * answer that is no longer kept was forgotten, not aged out.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAIL_CHANNEL } from '../../../src/server/store/postgres/mail-notices';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { waitFor } from '../../harness/wait';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

interface Opened {
  url: string;
  store: PostgresStore;
  reads: number[];
}

async function openStore(url?: string, recentMs = 60_000): Promise<Opened> {
  url ??= (await freshDatabase(cleanup)).url;
  const reads: number[] = [];
  const store = cleanup.defer(
    new PostgresStore({ url, poolSize: 4, recipientsRecentMs: recentMs, onRecipientRead: (n) => reads.push(n) }),
    (s) => s.close(),
  );
  await store.open();
  return { url, store, reads };
}

/** A store that hears the mail notices, as serve's does, with what it heard; resolves once it listens. */
async function listeningStore(url?: string, recentMs?: number) {
  const opened = await openStore(url, recentMs);
  const heard = { gone: [] as string[], mail: [] as string[], gaps: 0 };
  const notices = opened.store.listenForMail({
    onMail: (h) => heard.mail.push(...h),
    onGap: () => heard.gaps++,
    onGone: (h) => heard.gone.push(...h),
  });
  cleanup.defer(notices, (n) => n.close());
  // Listening once an address found is answered again without a query.
  const probe = sessionRecord();
  await opened.store.putSession(probe);
  await waitFor(async () => (await asked(opened, probe.addressKey)) === 0);
  return { ...opened, heard };
}

/** How many queries one read of `key` made (0: a recent answer). */
async function asked(opened: Opened, key: string, fresh?: boolean): Promise<number> {
  const before = opened.reads.length;
  await opened.store.recipientInbox(key, fresh);
  return opened.reads.length - before;
}

const hex = () => randomBytes(32).toString('hex');

describe('RCPT recent answers on Postgres', () => {
  it('answers a found address again while it hears the notices; not found and fresh are read', async () => {
    const plain = await openStore();
    const s = sessionRecord();
    await plain.store.putSession(s);
    // Without notices heard, every read is a query.
    expect([await asked(plain, s.addressKey), await asked(plain, s.addressKey)]).toEqual([1, 1]);
    const opened = await listeningStore(plain.url);
    expect(await asked(opened, s.addressKey)).toBe(1);
    expect(await asked(opened, s.addressKey)).toBe(0);
    expect(await opened.store.recipientInbox(s.addressKey)).toEqual({ session: s, messages: 0, recent: true });
    expect(await asked(opened, s.addressKey, true)).toBe(1);
    expect(await opened.store.recipientInbox(s.addressKey, true)).toEqual({ session: s, messages: 0 });
    // An address not found is asked again each time: a session created meanwhile (by any instance) is found.
    const later = sessionRecord();
    expect([await asked(opened, later.addressKey), await asked(opened, later.addressKey)]).toEqual([1, 1]);
    await plain.store.putSession(later);
    expect((await opened.store.recipientInbox(later.addressKey))?.session).toEqual(later);
  });

  it('keeps an answer for the time it is given (one second by default), then reads again', async () => {
    const opened = await listeningStore(undefined, 300);
    const s = sessionRecord();
    await opened.store.putSession(s);
    const before = Date.now();
    await opened.store.recipientInbox(s.addressKey);
    await waitFor(async () => (await asked(opened, s.addressKey)) === 1);
    expect(Date.now() - before).toBeGreaterThanOrEqual(295);
  });

  it('forgets a session another instance deletes, takes over or sweeps, or stores mail into, as its notice comes', async () => {
    const a = await listeningStore();
    const b = await openStore(a.url);
    const now = Date.now();
    const live = () => sessionRecord({ tokenHash: hex(), createdAt: now, expiresAt: now + 60_000 });
    const [deleted, mailed, taken, swept] = [live(), live(), live(), live()];
    for (const s of [deleted, mailed, taken, swept]) {
      await b.store.putSession(s);
      await a.store.recipientInbox(s.addressKey);
      expect(await asked(a, s.addressKey)).toBe(0);
    }
    expect(await b.store.deleteSession(deleted.id)).toBe(true);
    await waitFor(() => a.heard.gone.includes(deleted.tokenHash));
    expect(await asked(a, deleted.addressKey)).toBe(1);
    expect(await a.store.recipientInbox(deleted.addressKey)).toBeUndefined();
    // Mail stored elsewhere: the count is read again.
    await b.store.deliver([mailed.id], newMessage(), 10);
    await waitFor(() => a.heard.mail.includes(mailed.tokenHash));
    expect(await a.store.recipientInbox(mailed.addressKey)).toEqual({ session: mailed, messages: 1 });
    // Taken over once expired (by B's clock) and swept: each tells every instance it is gone.
    const taker = { ...sessionRecord(), addressKey: taken.addressKey, createdAt: now + 120_000 };
    expect(await b.store.insertSession(taker, now + 120_000)).toBe('created');
    await waitFor(() => a.heard.gone.includes(taken.tokenHash));
    expect((await a.store.recipientInbox(taken.addressKey))?.session).toEqual(taker);
    expect(await b.store.purgeExpired(now + 120_000)).toBeGreaterThanOrEqual(1);
    await waitFor(() => a.heard.gone.includes(swept.tokenHash));
    expect(await a.store.recipientInbox(swept.addressKey)).toBeUndefined();
  });

  it('does not keep an answer whose read was in the database when the session got mail elsewhere', async () => {
    const a = await listeningStore();
    const s = sessionRecord({ tokenHash: hex() });
    await a.store.putSession(s);
    const db = inspect(cleanup, a.url);
    // Another transaction holds the table: the read waits in the database.
    const holder = await db.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE tempmail_sessions IN ACCESS EXCLUSIVE MODE');
    const reading = a.store.recipientInbox(s.addressKey);
    await waitFor(
      async () =>
        (
          await db.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%address_key = ANY%'",
          )
        ).rowCount === 1,
    );
    // Another instance's mail into it, heard while the read waits: what the read answers is not kept.
    await db.query('SELECT pg_notify($1, $2)', [
      MAIL_CHANNEL,
      JSON.stringify({ from: 'another instance', t: [s.tokenHash] }),
    ]);
    await waitFor(() => a.heard.mail.includes(s.tokenHash));
    await holder.query('ROLLBACK');
    holder.release();
    expect((await reading)?.session).toEqual(s);
    expect(await asked(a, s.addressKey)).toBe(1);
    expect(await asked(a, s.addressKey)).toBe(0);
  });

  it('counts its own deliveries, and forgets a full inbox and the sessions it writes or deletes', async () => {
    const a = await listeningStore();
    const s = sessionRecord();
    await a.store.putSession(s);
    await a.store.recipientInbox(s.addressKey);
    await a.store.deliver([s.id], newMessage(), 10);
    await a.store.deliver([s.id], newMessage(), 10);
    expect(await asked(a, s.addressKey)).toBe(0);
    expect((await a.store.recipientInbox(s.addressKey))?.messages).toBe(2);
    // Full: read again, and the count is the database's.
    expect((await a.store.deliver([s.id], newMessage(), 2)).full).toEqual([s.id]);
    expect(await asked(a, s.addressKey)).toBe(1);
    expect((await a.store.recipientInbox(s.addressKey))?.messages).toBe(2);
    // A newer session written for the address (a takeover) is read at once.
    const newer = { ...sessionRecord(), addressKey: s.addressKey, createdAt: s.createdAt + 1000 };
    await a.store.putSession(newer);
    expect(await a.store.recipientInbox(s.addressKey)).toEqual({ session: newer, messages: 0 });
    expect(await asked(a, s.addressKey)).toBe(0);
    await a.store.deleteSession(newer.id);
    expect((await a.store.recipientInbox(s.addressKey))?.session).toEqual(s);
    // Created by insertSession once the holder has expired: also read at once.
    const taker = { ...sessionRecord(), addressKey: s.addressKey, createdAt: s.expiresAt + 1 };
    expect(await a.store.insertSession(taker, s.expiresAt + 1)).toBe('created');
    expect((await a.store.recipientInbox(s.addressKey))?.session).toEqual(taker);
  });

  it('keeps nothing while its notices connection is lost, forgets what it kept, and keeps again once back', async () => {
    const a = await listeningStore();
    const s = sessionRecord();
    await a.store.putSession(s);
    await a.store.recipientInbox(s.addressKey);
    expect(await asked(a, s.addressKey)).toBe(0);
    const db = inspect(cleanup, a.url);
    const endListener = async () => {
      const ended = await db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN ${MAIL_CHANNEL}%'`,
      );
      expect(ended.rowCount).toBe(1);
    };
    let gaps = a.heard.gaps;
    await endListener();
    // Two reads in a row that both query, with the store not listening again in between: nothing was
    // kept meanwhile. Should it listen again first (the retry comes after 500 ms), end it again.
    await waitFor(
      async () => {
        if (a.heard.gaps !== gaps) {
          gaps = a.heard.gaps;
          await endListener();
        }
        const both = [await asked(a, s.addressKey), await asked(a, s.addressKey)];
        return both[0] === 1 && both[1] === 1 && a.heard.gaps === gaps;
      },
      { timeoutMs: 15_000 },
    );
    // Listening again (a gap told): answers are kept again.
    await waitFor(() => a.heard.gaps > gaps, { timeoutMs: 10_000 });
    await waitFor(async () => (await asked(a, s.addressKey)) === 0);
  });
});
