/**
 * check-mail's answer is built once per version of the inbox and tagged: the same inbox answers the same
 * bytes with the same ETag, If-None-Match with that tag answers 304 with no body, and any change (mail
 * over SMTP, a delete) gives a new answer at once. Real service, real HTTP, real SMTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { summaryRow } from '../../../src/server/http/check-mail-cache';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function checkMail(baseUrl: string, token: string, ifNoneMatch?: string) {
  return call(baseUrl, '/check-mail', {
    query: { token },
    headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
  });
}

/** The listing as the uncached service path gives it, in wire form. */
async function expected(s: TestService, token: string) {
  return { status: 'success', messages: (await s.service.checkMail(token)).map(summaryRow) };
}

describe('check-mail ETag and 304', () => {
  it('tags an answer, answers 304 to its tag, and a new answer after mail arrives or is deleted', async () => {
    svc = await startTestService();
    const s = svc;
    const box = await newSession(s.baseUrl);
    const empty = await checkMail(s.baseUrl, box.token);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ status: 'success', messages: [] });
    const tag0 = empty.headers.get('etag')!;
    expect(tag0).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);

    const again = await checkMail(s.baseUrl, box.token, tag0);
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.get('etag')).toBe(tag0);

    await sendMail(s, { to: box.email, subject: 'first', text: 'one' });
    const one = await checkMail(s.baseUrl, box.token, tag0);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(await expected(s, box.token));
    expect(one.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['first']);
    const tag1 = one.headers.get('etag')!;
    expect(tag1).not.toBe(tag0);

    await sendMail(s, { to: box.email, subject: 'second', text: 'two' });
    const two = await checkMail(s.baseUrl, box.token, tag1);
    expect(two.status).toBe(200);
    expect(two.json).toEqual(await expected(s, box.token));
    expect(two.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['second', 'first']);
    const tag2 = two.headers.get('etag')!;
    // The same inbox, unchanged: the same bytes, and the same tag (a hash of them).
    const same = await checkMail(s.baseUrl, box.token);
    expect(same.bytes.equals(two.bytes)).toBe(true);
    expect(same.headers.get('etag')).toBe(tag2);

    const first = one.json!.messages[0].id as number;
    expect((await call(s.baseUrl, '/delete-mail', { form: { token: box.token, id: first } })).status).toBe(200);
    const afterDelete = await checkMail(s.baseUrl, box.token, tag2);
    expect(afterDelete.status).toBe(200);
    expect(afterDelete.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['second']);
    expect([tag0, tag1, tag2]).not.toContain(afterDelete.headers.get('etag'));
    expect(s.logs.some((l) => /^http GET \/check-mail 304 /.test(l))).toBe(true);
    expect(s.logs.join('\n')).not.toContain(box.token);
  });

  it('reads If-None-Match as RFC 9110 says: a list, a weak tag, *; a stale tag gets the answer', async () => {
    svc = await startTestService();
    const box = await newSession(svc.baseUrl);
    await sendMail(svc, { to: box.email, subject: 'hello', text: 'hi' });
    const tag = (await checkMail(svc.baseUrl, box.token)).headers.get('etag')!;
    for (const header of [`"other", ${tag}`, `W/${tag}`, '*', `${tag}, W/"x"`]) {
      expect((await checkMail(svc.baseUrl, box.token, header)).status, header).toBe(304);
    }
    for (const header of ['"stale"', '', tag.slice(1, -1), `W/"${tag}"`]) {
      const res = await checkMail(svc.baseUrl, box.token, header);
      expect(res.status, header).toBe(200);
      expect(res.json!.messages).toHaveLength(1);
    }
  });

  it('never answers 304 for a token it does not know, or an address that expired', async () => {
    let now = Date.UTC(2026, 10, 21, 10, 0, 0);
    svc = await startTestService({ lifetimeSeconds: 60 }, { clock: () => now });
    const box = await newSession(svc.baseUrl);
    const tag = (await checkMail(svc.baseUrl, box.token)).headers.get('etag')!;
    const unknown = await checkMail(svc.baseUrl, 'x'.repeat(43), tag);
    expect(unknown.status).toBe(401);
    expect(unknown.json).toMatchObject({ status: 'error', error: 'invalid_token' });
    expect((await checkMail(svc.baseUrl, box.token, '*')).status).toBe(304);
    now += 61_000;
    const expired = await checkMail(svc.baseUrl, box.token, tag);
    expect(expired.status).toBe(410);
    expect(expired.json).toMatchObject({ status: 'error', error: 'session_expired' });
  });

  it('keeps answers apart per inbox, and each right, when many inboxes are checked in turn', async () => {
    svc = await startTestService();
    const s = svc;
    const boxes = await Promise.all(Array.from({ length: 6 }, () => newSession(s.baseUrl)));
    for (const [i, box] of boxes.entries()) {
      for (let n = 0; n <= i; n++) await sendMail(s, { to: box.email, subject: `box ${i} mail ${n}`, text: 'x' });
    }
    for (let round = 0; round < 2; round++) {
      for (const [i, box] of boxes.entries()) {
        const res = await checkMail(s.baseUrl, box.token);
        expect(res.json).toEqual(await expected(s, box.token));
        expect(res.json!.messages).toHaveLength(i + 1);
      }
    }
  });
});
