/**
 * The check-mail cache is validated on every request, so it never serves a stale inbox: two services on
 * one store (a MemoryData shared as two services share one database; the same on real Postgres in
 * test/server/postgres/check-mail-cache.pg.test.ts), each with its own HTTP front end and cache, see each
 * other's mail and deletes at once. And what it keeps stays within its byte bound.
 */
import { describe, expect, it } from 'vitest';
import { createHttpFront, type HttpFront } from '../../../src/server/http/http-server';
import { CheckMailCache } from '../../../src/server/http/check-mail-cache';
import { createMailService } from '../../../src/server/service/mail-service';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import type { MailService } from '../../../src/server/service/service-types';
import { createMemoryData, MemoryStore, type MemoryData } from '../../../src/server/store/memory-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';

const cleanup = cleanupAfterEach();
const config = { ...defaultServerConfig({}), domains: ['tempmail.test'], inboxLimit: 1000, createPerMinute: 1000 };

/** A service with its own HTTP front end on `data`, as one instance of several on one database. */
async function instance(data: MemoryData): Promise<{ service: MailService; baseUrl: string }> {
  const store = new MemoryStore(data);
  await store.open();
  const service = createMailService({ store, config });
  const front: HttpFront = createHttpFront(service);
  const port = await front.listen(0, '127.0.0.1');
  cleanup.defer(front, async (f) => {
    await f.close();
    await service.close();
  });
  return { service, baseUrl: `http://127.0.0.1:${port}/` };
}

const raw = (to: string, subject: string) =>
  Buffer.from(`From: a@example.org\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nbody\r\n`);

async function subjects(baseUrl: string, token: string, ifNoneMatch?: string) {
  const res = await call(baseUrl, '/check-mail', {
    query: { token },
    headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {},
  });
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    subjects: (res.json?.messages ?? []).map((m: { subject: string }) => m.subject),
  };
}

describe('check-mail cache', () => {
  it("two services on one store: each sees the other's mail and deletes at once, and their tags agree", async () => {
    const data = createMemoryData();
    const a = await instance(data);
    const b = await instance(data);
    const box = await a.service.createSession({ clientAddress: '127.0.0.1' });
    expect((await a.service.deliver({ raw: raw(box.email, 'one'), recipients: [box.email] })).delivered).toBe(1);
    const warm = await subjects(a.baseUrl, box.token);
    expect(warm.subjects).toEqual(['one']);
    // Same listing, same bytes: B answers 304 to A's tag.
    expect((await subjects(b.baseUrl, box.token, warm.etag!)).status).toBe(304);

    await b.service.deliver({ raw: raw(box.email, 'two'), recipients: [box.email] });
    const after = await subjects(a.baseUrl, box.token, warm.etag!);
    expect(after).toMatchObject({ status: 200, subjects: ['two', 'one'] });

    const [newest] = await b.service.checkMail(box.token);
    await b.service.deleteMail(box.token, newest!.id);
    expect((await subjects(a.baseUrl, box.token, after.etag!)).subjects).toEqual(['one']);
    expect((await subjects(b.baseUrl, box.token)).subjects).toEqual(['one']);
  });

  it('keeps within its byte bound, least recently used out, every answer right', async () => {
    const data = createMemoryData();
    const { service } = await instance(data);
    const cache = new CheckMailCache(40_000);
    const boxes = [];
    for (let i = 0; i < 12; i++) {
      const box = await service.createSession({ clientAddress: '127.0.0.1' });
      // ~90 bytes a row: each answer is some 2-9 KB, their sum well past the bound.
      for (let n = 0; n < 10 + 5 * i; n++)
        await service.deliver({ raw: raw(box.email, `box ${i} mail ${n}`), recipients: [box.email] });
      boxes.push(box);
    }
    for (let round = 0; round < 3; round++) {
      for (const box of boxes) {
        const { body } = await cache.answer(await service.inbox(box.token));
        const listed = JSON.parse(body.toString('utf8')) as { messages: { id: number; subject: string }[] };
        expect(listed.messages.map((m) => m.id)).toEqual((await service.checkMail(box.token)).map((m) => m.id));
        expect(cache.size).toBeLessThanOrEqual(40_000);
        expect(cache.size).toBeGreaterThan(0);
      }
    }
    // One inbox bigger than the whole bound is answered, not kept.
    const huge = await service.createSession({ clientAddress: '127.0.0.1' });
    for (let n = 0; n < 400; n++)
      await service.deliver({ raw: raw(huge.email, `huge ${n}`), recipients: [huge.email] });
    const before = cache.size;
    const { body } = await cache.answer(await service.inbox(huge.token));
    expect((JSON.parse(body.toString('utf8')) as { messages: unknown[] }).messages).toHaveLength(400);
    expect(cache.size).toBe(before);
  });

  it('builds once for many requests that find the same new version together', async () => {
    const data = createMemoryData();
    const { service } = await instance(data);
    const box = await service.createSession({ clientAddress: '127.0.0.1' });
    await service.deliver({ raw: raw(box.email, 'x'), recipients: [box.email] });
    const cache = new CheckMailCache();
    const views = await Promise.all(Array.from({ length: 10 }, () => service.inbox(box.token)));
    const answers = await Promise.all(views.map((v) => cache.answer(v)));
    // One build: every request got the very same bytes.
    for (const answer of answers) expect(answer.body).toBe(answers[0]!.body);
  });
});
