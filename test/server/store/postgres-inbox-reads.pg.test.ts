/**
 * check-mail's reads on Postgres, grouped (src/server/store/postgres/grouped-reads.ts): the tokens polled
 * together are read in one query, and each poll gets what a read of its own would have given: the
 * token's session and its inbox's version, nothing for an unknown token, and never an answer older than
 * its question.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase } from '../../harness/postgres/database';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

async function openStore() {
  const { url } = await freshDatabase(cleanup);
  const reads: number[] = [];
  const store = cleanup.defer(new PostgresStore({ url, poolSize: 4, onInboxRead: (n) => reads.push(n) }), (s) => s.close());
  await store.open();
  return { store, reads };
}

describe('check-mail reads on Postgres', () => {
  it('reads the tokens polled together in one query, each answered as if alone', async () => {
    const { store, reads } = await openStore();
    const sessions = Array.from({ length: 5 }, () => sessionRecord());
    for (const s of sessions) await store.putSession(s);
    await store.addMessage(sessions[2]!.id, newMessage());
    await store.addMessage(sessions[2]!.id, newMessage());
    const versions = await Promise.all(sessions.map((s) => store.inboxVersion(s.id)));
    const hashes = [...sessions.map((s) => s.tokenHash), 'no-such-token', sessions[2]!.tokenHash];
    const answers = await Promise.all(hashes.map((h) => store.inboxByTokenHash(h)));
    expect(reads).toEqual([6]);
    for (const [i, s] of sessions.entries()) expect(answers[i]).toEqual({ session: s, version: versions[i] });
    expect(versions[2]).toBe('2.2');
    expect(answers[5]).toBeUndefined();
    // Two polls of one token get equal answers, not one object to share.
    expect(answers[6]).toEqual(answers[2]);
    expect(answers[6]!.session).not.toBe(answers[2]!.session);
  });

  it('never answers older than the question: a poll after a change sees it', async () => {
    const { store, reads } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    const before = store.inboxByTokenHash(s.tokenHash);
    await store.addMessage(s.id, newMessage());
    const after = await store.inboxByTokenHash(s.tokenHash);
    // Asked before the change, it may see either side of it; asked after, never the old side.
    expect(['0.0', '1.1']).toContain((await before)?.version);
    expect(after?.version).toBe('1.1');
    await store.deleteMessage(s.id, 1);
    expect((await store.inboxByTokenHash(s.tokenHash))?.version).toBe('1.0');
    await store.deleteSession(s.id);
    expect(await store.inboxByTokenHash(s.tokenHash)).toBeUndefined();
    // At low load each poll is a read of its own, sent at once.
    expect(reads).toEqual([1, 1, 1, 1]);
  });

  it('rejects every poll once the store is closed', async () => {
    const { store } = await openStore();
    const s = sessionRecord();
    await store.putSession(s);
    await store.close();
    const outcomes = await Promise.allSettled([store.inboxByTokenHash(s.tokenHash), store.inboxByTokenHash('other')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreClosedError' });
  });
});
