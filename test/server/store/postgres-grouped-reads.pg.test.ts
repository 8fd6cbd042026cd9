/**
 * Reads grouped on Postgres (src/server/store/postgres/grouped-reads.ts): RCPT TO's addresses
 * (recipient-reads.ts) and check-mail's tokens asked for together are read in one query each, and each
 * caller gets what a read of its own would have given: the newest holder of its address and its count,
 * or the token's session and its inbox's version; nothing for what is unknown; never an answer older
 * than its question.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase } from '../../harness/postgres/database';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

/** A store counting its queries: addresses each RCPT read held (`reads`), tokens each check-mail read held (`polls`). */
async function openStore() {
  const { url } = await freshDatabase(cleanup);
  const reads: number[] = [];
  const polls: number[] = [];
  const store = cleanup.defer(
    new PostgresStore({ url, poolSize: 4, onRecipientRead: (n) => reads.push(n), onInboxRead: (n) => polls.push(n) }),
    (s) => s.close(),
  );
  await store.open();
  return { store, reads, polls };
}

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
    const keys = [
      ...sessions.map((s) => s.addressKey),
      'nobody@tempmail.test',
      sessions[3]!.addressKey,
      sessions[5]!.addressKey,
    ];
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
});

describe('check-mail reads on Postgres', () => {
  it('reads the tokens polled together in one query, each answered as if alone', async () => {
    const { store, polls: reads } = await openStore();
    const sessions = Array.from({ length: 5 }, () => sessionRecord());
    for (const s of sessions) await store.putSession(s);
    await store.addMessage(sessions[2]!.id, newMessage());
    await store.addMessage(sessions[2]!.id, newMessage());
    const versions = await Promise.all(sessions.map((s) => store.inboxVersion(s.id)));
    const hashes = [...sessions.map((s) => s.tokenHash), 'no-such-token', sessions[2]!.tokenHash];
    const answers = await Promise.all(hashes.map((h) => store.inboxByTokenHash(h)));
    expect(reads).toEqual([6]);
    for (const [i, s] of sessions.entries()) expect(answers[i]).toEqual({ session: s, version: versions[i] });
    expect(versions[2]).toBe(`${(await store.listMessages(sessions[2]!.id)).at(-1)!.id}.2`);
    expect(answers[5]).toBeUndefined();
    // Two polls of one token get equal answers, not one object to share.
    expect(answers[6]).toEqual(answers[2]);
    expect(answers[6]!.session).not.toBe(answers[2]!.session);
  });

  it('never answers older than the question: a poll after a change sees it', async () => {
    const { store, polls: reads } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    const before = store.inboxByTokenHash(s.tokenHash);
    const { id } = await store.addMessage(s.id, newMessage());
    const after = await store.inboxByTokenHash(s.tokenHash);
    // Asked before the change, it may see either side of it; asked after, never the old side.
    expect(['0.0', `${id}.1`]).toContain((await before)?.version);
    expect(after?.version).toBe(`${id}.1`);
    await store.deleteMessage(s.id, id);
    expect((await store.inboxByTokenHash(s.tokenHash))?.version).toBe(`${id}.0`);
    await store.deleteSession(s.id);
    expect(await store.inboxByTokenHash(s.tokenHash)).toBeUndefined();
    // At low load each poll is a read of its own, sent at once.
    expect(reads).toEqual([1, 1, 1, 1]);
  });
});

describe('grouped reads once the store is closed', () => {
  it('rejects every caller, RCPT and check-mail alike', async () => {
    const { store } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    await store.close();
    const outcomes = await Promise.allSettled([
      store.recipientInbox(s.addressKey),
      store.recipientInbox('x@tempmail.test'),
      store.inboxByTokenHash(s.tokenHash),
      store.inboxByTokenHash('other'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreClosedError' });
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreClosedError' });
  });
});
