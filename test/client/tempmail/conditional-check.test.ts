/**
 * The client skips unchanged inboxes: it sends the ETag of its last check-mail answer back as
 * If-None-Match, and on 304 answers the list it already has. Through the real client (the provider the
 * app and scripts use) against the real reference service; and against services that send no ETag, or a
 * 304 nobody asked for, over real HTTP on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import type { MailProvider } from '../../../src/client/client-types';
import type { Session } from '../../../src/model/mail-types';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { expectFailure } from '../assert';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

const checkLines = (s: TestService) => s.logs.filter((l) => / \/check-mail /.test(l)).map((l) => l.split(' ')[3]);

describe('check-mail with the reference service: 304 for an unchanged inbox', () => {
  let svc: TestService;
  let provider: MailProvider;
  beforeAll(async () => {
    svc = await startTestService();
    provider = createTempmailProvider({ baseUrl: svc.baseUrl });
  });
  afterAll(() => svc?.close());

  it('asks with the last tag, keeps the list on 304, and gets the new list when mail arrives', async () => {
    const session = await provider.createSession();
    const first = await provider.listMessages(session);
    expect(first).toEqual([]);
    const unchanged = await provider.listMessages(session);
    expect(unchanged).toBe(first);
    expect(checkLines(svc)).toEqual(['200', '304']);

    await sendMail(svc, { to: session.email, subject: 'Your code is 482913', text: 'code 482913' });
    const one = await provider.listMessages(session);
    expect(one.map((m) => m.subject)).toEqual(['Your code is 482913']);
    expect(await provider.listMessages(session)).toBe(one);
    expect(await provider.listMessages(session)).toBe(one);

    await provider.deleteMessage(session, one[0]!.id);
    expect(await provider.listMessages(session)).toEqual([]);
    expect(checkLines(svc)).toEqual(['200', '304', '200', '304', '304', '200']);
  });

  it('keeps one inbox apart from another', async () => {
    const a = await provider.createSession();
    const b = await provider.createSession();
    await sendMail(svc, { to: a.email, subject: 'for a', text: 'a' });
    const listA = await provider.listMessages(a);
    const listB = await provider.listMessages(b);
    expect(listA.map((m) => m.subject)).toEqual(['for a']);
    expect(listB).toEqual([]);
    expect(await provider.listMessages(b)).toBe(listB);
    expect(await provider.listMessages(a)).toBe(listA);
  });
});

describe('check-mail with services that send no ETag', () => {
  let fixture: FixtureServer;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterEach(() => fixture.handle((_req, res) => sendJson(res, 404, { status: 'error', error: 'not_found' })));
  afterAll(() => fixture?.close());

  it('never sends If-None-Match, and lists each time as before', async () => {
    const seen: (string | undefined)[] = [];
    let subject = 'first';
    fixture.handle((req, res, raw) => {
      seen.push(raw.headers['if-none-match']);
      if (req.path !== '/check-mail') return sendJson(res, 404, { status: 'error', error: 'not_found' });
      sendJson(res, 200, {
        status: 'success',
        messages: [{ id: 1, sender_name: 'A', sender_email: 'a@x.test', subject, received_at: '2026-01-01 10:00:00' }],
      });
    });
    const provider = createTempmailProvider({ baseUrl: fixture.baseUrl });
    const session: Session = { email: 'a@x.test', token: 'tok-123456', expiresAt: null };
    expect((await provider.listMessages(session)).map((m) => m.subject)).toEqual(['first']);
    subject = 'second';
    expect((await provider.listMessages(session)).map((m) => m.subject)).toEqual(['second']);
    expect(seen).toEqual([undefined, undefined]);
  });

  it('refuses a 304 it did not ask for (no list of its own to keep)', async () => {
    fixture.handle((_req, res) => {
      res.writeHead(304, { etag: '"x"' });
      res.end();
    });
    const provider = createTempmailProvider({ baseUrl: fixture.baseUrl });
    const session: Session = { email: 'a@x.test', token: 'tok-abcdef', expiresAt: null };
    await expectFailure(provider.listMessages(session), 'bad_response', 'tok-abcdef');
  });

  it('asks again in full when the service stops sending a tag', async () => {
    let tagged = true;
    let subject = 'one';
    const seen: (string | undefined)[] = [];
    fixture.handle((_req, res, raw) => {
      seen.push(raw.headers['if-none-match']);
      if (raw.headers['if-none-match'] === '"v1"' && tagged) {
        res.writeHead(304, { etag: '"v1"' });
        return void res.end();
      }
      sendJson(
        res,
        200,
        {
          status: 'success',
          messages: [{ id: 1, sender_name: '', sender_email: 'a@x.test', subject, received_at: '2026-01-01 10:00:00' }],
        },
        tagged ? { etag: '"v1"' } : {},
      );
    });
    const provider = createTempmailProvider({ baseUrl: fixture.baseUrl });
    const session: Session = { email: 'a@x.test', token: 'tok-zzzzzz', expiresAt: null };
    const first = await provider.listMessages(session);
    expect(await provider.listMessages(session)).toBe(first);
    tagged = false;
    subject = 'two';
    expect((await provider.listMessages(session)).map((m) => m.subject)).toEqual(['two']);
    expect((await provider.listMessages(session)).map((m) => m.subject)).toEqual(['two']);
    expect(seen).toEqual([undefined, '"v1"', '"v1"', undefined]);
  });
});
