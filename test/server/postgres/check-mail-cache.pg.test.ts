/**
 * Each `serve` keeps its own check-mail answers (src/server/http/check-mail-cache.ts); on one database
 * that must never show a stale inbox. Two built instances: A's answer is warm, mail arrives through B
 * (SMTP) or is deleted through B, and A's very next check-mail shows it. Their ETags agree (a hash of
 * the same bytes), so a client moved from A to B by a load balancer still hears 304 when nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';

const cleanup = cleanupAfterEach();

async function check(baseUrl: string, token: string, ifNoneMatch?: string) {
  const res = await call(baseUrl, '/check-mail', {
    query: { token },
    headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {},
  });
  const subjects = ((res.json?.messages ?? []) as { subject: string }[]).map((m) => m.subject);
  return {
    status: res.status,
    etag: res.headers.get('etag') ?? '',
    subjects,
    ids: ((res.json?.messages ?? []) as { id: number }[]).map((m) => m.id),
  };
}

describe('check-mail answers kept per instance, on one database', () => {
  it('never serve a stale inbox: mail and deletes through B show on A at once', async () => {
    const { url } = await freshDatabase(cleanup);
    const [a, b] = await Promise.all([startInstance(cleanup, url), startInstance(cleanup, url)]);
    const box = await newSession(a!.baseUrl);
    await sendMail(a!, { to: box.email, subject: 'one', text: '1' });
    // Warm on A: asked twice, the second time as a client that kept the answer.
    const warm = await check(a!.baseUrl, box.token);
    expect(warm.subjects).toEqual(['one']);
    expect((await check(a!.baseUrl, box.token, warm.etag)).status).toBe(304);
    expect((await check(b!.baseUrl, box.token, warm.etag)).status).toBe(304);

    await sendMail(b!, { to: box.email, subject: 'two', text: '2' });
    const two = await check(a!.baseUrl, box.token, warm.etag);
    expect(two).toMatchObject({ status: 200, subjects: ['two', 'one'] });

    expect((await call(b!.baseUrl, '/delete-mail', { form: { token: box.token, id: two.ids[1]! } })).status).toBe(200);
    const afterDelete = await check(a!.baseUrl, box.token, two.etag);
    expect(afterDelete).toMatchObject({ status: 200, subjects: ['two'] });

    // A delete of the newest and a new message through B: the count is the same as before, the list is not.
    expect((await call(b!.baseUrl, '/delete-mail', { form: { token: box.token, id: two.ids[0]! } })).status).toBe(200);
    await sendMail(b!, { to: box.email, subject: 'three', text: '3' });
    const three = await check(a!.baseUrl, box.token, afterDelete.etag);
    expect(three).toMatchObject({ status: 200, subjects: ['three'] });
    expect((await check(b!.baseUrl, box.token, three.etag)).status).toBe(304);
  });
});
