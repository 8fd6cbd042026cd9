/**
 * The tempmaillol provider against its conformance fake (test/providers/tempmaillol-fake.ts) over real
 * HTTP: an inbox with or without a name, its mail (text and HTML, epoch-ms dates, senders "Name <a@b>"),
 * the same message ids from every process, one hour of life, the API key as a bearer token and never in
 * an error, and its refusals in words: the captcha (try another provider), a bad or spent key, expiry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../src/client/api-error';
import { createProvider } from '../../../src/client/providers';
import {
  startTempmaillolFake,
  type TempmaillolFake,
  type TempmaillolFakeOptions,
} from '../../providers/tempmaillol-fake';

const fakes: TempmaillolFake[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close();
});
async function fake(options: TempmaillolFakeOptions = {}) {
  const f = await startTempmaillolFake(options);
  fakes.push(f);
  return f;
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ApiError,
  );

describe('tempmaillol provider', () => {
  it('makes an inbox (a name, TempMail.lol picks the domain), lists and reads its mail, newest first', async () => {
    const f = await fake();
    const lol = createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0 });
    expect(await lol.listDomains()).toEqual({ domains: [], extmailAccounts: [], anyDomain: true });
    const before = Date.now();
    const s = await lol.createSession({ prefix: 'Reader' });
    expect(s.email).toMatch(/^reader[0-9a-f]{4}@(tmlol|lolbox)\.test$/);
    expect(s.expiresAt!.getTime() - before).toBeGreaterThanOrEqual(60 * 60_000 - 1000);
    expect(s.expiresAt!.getTime() - before).toBeLessThanOrEqual(60 * 60_000 + 5000);
    expect(f.log.at(-1)).toEqual({ method: 'POST', path: '/v2/inbox/create', status: 201 });

    f.deliver(s.email, {
      from: '"Acme Accounts" <accounts@acme.example>',
      subject: 'Your code',
      body: 'Your code is 482913.',
      at: new Date('2026-01-02T03:04:05Z'),
    });
    f.deliver(s.email, {
      from: 'news@shop.example',
      subject: 'Newer',
      body: 'plain',
      html: '<p>Hello <b>there</b></p>',
      at: new Date('2026-01-02T04:00:00Z'),
    });
    const list = await lol.listMessages(s);
    expect(list.map((m) => [m.subject, m.senderName, m.senderEmail, m.receivedAt?.toISOString()])).toEqual([
      ['Newer', '', 'news@shop.example', '2026-01-02T04:00:00.000Z'],
      ['Your code', 'Acme Accounts', 'accounts@acme.example', '2026-01-02T03:04:05.000Z'],
    ]);
    // Another process (another client) names the same mail by the same id.
    const again = await createProvider('tempmaillol', { baseUrl: f.baseUrl }).listMessages(s);
    expect(again.map((m) => m.id)).toEqual(list.map((m) => m.id));
    const message = await lol.readMessage(s, list[0]!.id);
    expect(message).toMatchObject({
      subject: 'Newer',
      bodyText: 'plain',
      bodyHtml: '<p>Hello <b>there</b></p>',
      to: [s.email],
      attachments: [],
    });
    expect((await lol.readMessage(s, list[1]!.id)).bodyHtml).toBeNull();
    expect(await failure(lol.readMessage(s, 'abc123'))).toMatchObject({
      kind: 'not_found',
      message: 'TempMail.lol no longer has that message',
    });
    expect(await failure(lol.deleteMessage(s, list[0]!.id))).toMatchObject({
      kind: 'bad_request',
      message: expect.stringContaining('cannot delete'),
    });
  });

  it('lists at most 1,000 emails of an inbox and says that it left the rest out', async () => {
    const f = await fake();
    const lol = createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0 });
    const s = await lol.createSession();
    for (let i = 0; i < 1_005; i++)
      f.deliver(s.email, {
        from: 'flood@example.test',
        subject: `#${i}`,
        body: `mail ${i}`,
        at: new Date(1_767_225_600_000 + i * 1000),
      });
    const list = await lol.listMessages(s);
    expect(list).toHaveLength(1_000);
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'items', limit: 1_000 } });
  });

  it('an expired inbox is said as expired', async () => {
    const f = await fake();
    const lol = createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0 });
    const s = await lol.createSession();
    f.expire(s.email);
    expect(await failure(lol.listMessages({ ...s, expiresAt: new Date(Date.now() - 1000) }))).toMatchObject({
      kind: 'session_expired',
      message: 'This TempMail.lol inbox has expired (one hour)',
    });
    expect(await failure(lol.listMessages(s))).toMatchObject({ kind: 'invalid_token' });
  });

  it('sends the API key as a bearer token and keeps it out of every error', async () => {
    const key = 'tm.1234567890.abcdefghijklmnopqrstuvwxyz';
    const f = await fake({ keys: [key], noTime: ['tm.spent.key'] });
    const lol = createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0, apiKey: key });
    await lol.createSession();
    expect(f.log.at(-1)).toMatchObject({ status: 201, key });
    const wrong = await failure(
      createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0, apiKey: 'tm.0.wrong' }).createSession(),
    );
    expect(wrong).toMatchObject({
      kind: 'bad_request',
      message: expect.stringMatching(/^TempMail\.lol refused the API key \(403\)/),
    });
    expect(wrong!.message).not.toContain('tm.0.wrong');
    const spent = await failure(
      createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0, apiKey: 'tm.spent.key' }).createSession(),
    );
    expect(spent!.message).toBe('TempMail.lol says the API key has no time left (402)');
  });

  it('a captcha it wants solved (403 captcha_required) is said in words: try another provider', async () => {
    const f = await fake({ captcha: true });
    const error = await failure(createProvider('tempmaillol', { baseUrl: f.baseUrl, retries: 0 }).createSession());
    expect(error).toMatchObject({ kind: 'blocked', details: { status: 403 } });
    expect(error!.message).toBe(
      'TempMail.lol wants a captcha solved from this network (it asks some countries and networks), which a terminal cannot do: try another provider',
    );
  });
});
