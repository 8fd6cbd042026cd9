/**
 * RCPT TO's reads on Postgres, grouped (src/server/store/postgres/recipient-reads.ts): addresses asked
 * for together are read in one query, and each caller gets what a read of its own would have given: the
 * newest holder of its address, its count, nothing for an unknown address, and never an answer older
 * than its question. While the store hears the mail notices, an address found is taken as found for a
 * moment (recent-recipients.ts): what keeps that true is tested here with a second instance.
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

async function openStore(url?: string) {
  url ??= (await freshDatabase(cleanup)).url;
  const reads: number[] = [];
  const store = cleanup.defer(new PostgresStore({ url, poolSize: 4, onRecipientRead: (n) => reads.push(n) }), (s) => s.close());
  await store.open();
  return { url, store, reads };
}

/** A store that hears the mail notices, as serve's does, with what it heard; resolves once it listens. */
async function listeningStore(url?: string) {
  const opened = await openStore(url);
  const heard = { gone: [] as string[], gaps: 0 };
  const notices = opened.store.listenForMail({ onMail: () => undefined, onGap: () => heard.gaps++, onGone: (h) => heard.gone.push(...h) });
  cleanup.defer(notices, (n) => n.close());
  // Listening once an address found is answered again without a query.
  const probe = sessionRecord();
  await opened.store.putSession(probe);
  await waitFor(async () => (await asked(opened, probe.addressKey)) === 0);
  return { ...opened, heard };
}

/** How many queries one read of `key` made (0: a recent answer). */
async function asked(opened: { store: PostgresStore; reads: number[] }, key: string, fresh?: boolean): Promise<number> {
  const before = opened.reads.length;
  await opened.store.recipientInbox(key, fresh);
  return opened.reads.length - before;
}

const hex = () => randomBytes(32).toString('hex');

describe('RCPT reads on Postgres', () => {
  it('reads the addresses asked for together in one query, each answered as if alone', async () => {
    const { store, reads } = await openStore();
    const sessions = Array.from({ length: 12 }, () => sessionRecord());
    for (const s of sessions) await store.putSession(s);
    // A newer session on the first one's address (a takeover): the newest holder answers.
    const newer = { ...sessionRecord(), addressKey: sessions[0]!.addressKey, createdAt: sessions[0]!.createdAt + 1000 };
    await store.putSession(newer);
    await store.addMessage(sessions[3]!.id, newMessage());
    await store.addMessage(sessions[3]!.id, newMessage());
    const keys = [...sessions.map((s) => s.addressKey), 'nobody@tempmail.test', sessions[3]!.addressKey, sessions[5]!.addressKey];
    const answers = await Promise.all(keys.map((k) => store.recipientInbox(k)));
    expect(reads).toEqual([13]);
    expect(answers[0]).toEqual({ session: newer, messages: 0 });
    for (let i = 1; i < 12; i++) expect(answers[i]).toEqual({ session: sessions[i], messages: i === 3 ? 2 : 0 });
    expect(answers[12]).toBeUndefined();
    expect(answers[13]).toEqual(answers[3]);
    // Two callers of one address get equal answers, not one object to share.
    expect(answers[13]!.session).not.toBe(answers[3]!.session);
    expect(answers[14]).toEqual(answers[5]);
  });

  it('never answers older than the question: a read asked after a change sees it', async () => {
    const { store } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    const before = store.recipientInbox(s.addressKey);
    const stored = store.addMessage(s.id, newMessage());
    await stored;
    const after = await store.recipientInbox(s.addressKey);
    await before;
    expect(after?.messages).toBe(1);
    await store.deleteSession(s.id);
    expect(await store.recipientInbox(s.addressKey)).toBeUndefined();
  });

  it('reads more than 500 addresses asked together in two queries, at once', async () => {
    const { store, reads } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    const keys = [s.addressKey, ...Array.from({ length: 520 }, (_, i) => `nobody-${i}@tempmail.test`)];
    const answers = await Promise.all(keys.map((k) => store.recipientInbox(k)));
    expect(reads).toEqual([500, 21]);
    expect(answers[0]?.session).toEqual(s);
    expect(answers.slice(1).every((a) => a === undefined)).toBe(true);
  });

  it('answers a read asked at low load on its own, at once', async () => {
    const { store, reads } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    for (let i = 0; i < 3; i++) expect((await store.recipientInbox(s.addressKey))?.session).toEqual(s);
    expect(reads).toEqual([1, 1, 1]);
  });

  it('rejects every caller of a read once the store is closed', async () => {
    const { store } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    await store.close();
    const outcomes = await Promise.allSettled([store.recipientInbox(s.addressKey), store.recipientInbox('x@tempmail.test')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreClosedError' });
  });

  it('answers a found address again from a moment ago while it hears the notices; not found and fresh are read', async () => {
    const plain = await openStore();
    const s = sessionRecord();
    await plain.store.putSession(s);
    // Without notices heard, every read is a query.
    expect([await asked(plain, s.addressKey), await asked(plain, s.addressKey)]).toEqual([1, 1]);
    const opened = await listeningStore(plain.url);
    expect(await asked(opened, s.addressKey)).toBe(1);
    expect(await asked(opened, s.addressKey)).toBe(0);
    expect(await opened.store.recipientInbox(s.addressKey)).toEqual({ session: s, messages: 0, recent: true });
    // A fresh read is a query (and keeps its answer: the last is kept from here on).
    const keptAt = Date.now();
    expect(await asked(opened, s.addressKey, true)).toBe(1);
    expect(await opened.store.recipientInbox(s.addressKey, true)).toEqual({ session: s, messages: 0 });
    // An address not found is asked again each time: a session created meanwhile (by any instance) is found.
    const later = sessionRecord();
    expect([await asked(opened, later.addressKey), await asked(opened, later.addressKey)]).toEqual([1, 1]);
    await plain.store.putSession(later);
    expect((await opened.store.recipientInbox(later.addressKey))?.session).toEqual(later);
    // Past RECENT_MS (one second) the address is read again.
    await waitFor(async () => (await asked(opened, s.addressKey)) === 1, { timeoutMs: 5000 });
    expect(Date.now() - keptAt).toBeGreaterThanOrEqual(990);
  });

  it('forgets a session another instance deletes as soon as its notice comes', async () => {
    const a = await listeningStore();
    const b = await openStore(a.url);
    const s = sessionRecord({ tokenHash: hex() });
    await b.store.putSession(s);
    expect((await a.store.recipientInbox(s.addressKey))?.session).toEqual(s);
    expect(await asked(a, s.addressKey)).toBe(0);
    expect(await b.store.deleteSession(s.id)).toBe(true);
    await waitFor(() => a.heard.gone.includes(s.tokenHash));
    expect(await asked(a, s.addressKey)).toBe(1);
    expect(await a.store.recipientInbox(s.addressKey)).toBeUndefined();
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

  it('keeps nothing while its notices connection is lost, and forgets what it kept', async () => {
    const a = await listeningStore();
    const s = sessionRecord();
    await a.store.putSession(s);
    await a.store.recipientInbox(s.addressKey);
    expect(await asked(a, s.addressKey)).toBe(0);
    const db = inspect(cleanup, a.url);
    const ended = await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN ${MAIL_CHANNEL}%'`);
    expect(ended.rowCount).toBe(1);
    await waitFor(async () => (await asked(a, s.addressKey)) === 1);
    // Listening again (a gap told): answers are kept again.
    await waitFor(() => a.heard.gaps === 1, { timeoutMs: 10_000 });
    await waitFor(async () => (await asked(a, s.addressKey)) === 0);
  });
});
