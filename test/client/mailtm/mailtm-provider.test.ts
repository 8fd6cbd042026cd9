/**
 * The mailtm provider against the mail.tm conformance fake over real HTTP: accounts with strong
 * passwords, the documented error answers (401 on a bad or expired token and a new token from the saved
 * password, 422 on a taken address, 429 with Retry-After), every page of messages, an HTML-only message,
 * attachments through their download URL, delete, account deletion, and JSON-LD as well as plain JSON.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/client/api-error';
import { createMailtmProvider, mercureUrl } from '../../../src/client/mailtm/mailtm-provider';
import type { MailProvider } from '../../../src/client/client-types';
import { startMailtmFake, type MailtmFake, type MailtmFakeOptions } from '../../providers/mailtm-fake';

let fake: MailtmFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(options: MailtmFakeOptions = {}): Promise<{ fake: MailtmFake; mt: MailProvider }> {
  fake = await startMailtmFake(options);
  return { fake, mt: createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 }) };
}

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

describe('mailtm provider', () => {
  it('lists the active public domains, numbered, with no external-mail accounts; one request, or one a page', async () => {
    const { fake, mt } = await setup();
    expect(await mt.listDomains()).toEqual({
      domains: [
        { id: 1, domain: 'mailtm.test' },
        { id: 2, domain: 'inbox-tm.test' },
      ],
      extmailAccounts: [],
    });
    // totalItems counts the inactive and private domains too: all 4 came on the first page.
    expect(fake.log.filter((l) => l.path === '/domains')).toHaveLength(1);
  });

  it('reads every page of domains', async () => {
    const { fake, mt } = await setup({ pageSize: 3 });
    expect((await mt.listDomains()).domains.map((d) => d.domain)).toEqual(['mailtm.test', 'inbox-tm.test']);
    expect(fake.log.filter((l) => l.path === '/domains')).toHaveLength(2);
  });

  it('creates an account with a strong random password; the address has no expiry', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    expect(s.email).toMatch(/^[a-z][a-z0-9]{11}@(mailtm|inbox-tm)\.test$/);
    expect(s.expiresAt).toBeNull();
    expect(s.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s.token.split('.')).toHaveLength(3);
    expect(fake.accounts()).toEqual([{ id: s.accountId, address: s.email }]);
    const named = await mt.createSession({ prefix: 'Jane.Doe', domain: 'inbox-tm.test' });
    expect(named.email).toBe('jane.doe@inbox-tm.test');
    // Two addresses, two passwords.
    expect(named.password).not.toBe(s.password);
  });

  it('a taken name is prefix_taken (422 "already used"); a name mail.tm refuses is its own words', async () => {
    const { mt } = await setup();
    await mt.createSession({ prefix: 'taken', domain: 'mailtm.test' });
    const taken = await failure(mt.createSession({ prefix: 'taken', domain: 'mailtm.test' }));
    expect(taken.kind).toBe('prefix_taken');
    expect(taken.details.status).toBe(422);
    const bad = await failure(mt.createSession({ prefix: 'ab', domain: 'mailtm.test' }));
    expect(bad).toMatchObject({
      kind: 'bad_request',
      message: 'mail.tm refused ab@mailtm.test: address: This value is not valid.',
    });
  });

  it('reads every page of messages, newest first', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const base = Date.now() - 100_000;
    for (let i = 0; i < 65; i++)
      fake.deliver(s.email, { subject: `Message ${i}`, text: `body ${i}`, at: new Date(base + i * 1000) });
    fake.log.length = 0;
    const list = await mt.listMessages(s);
    expect(list).toHaveLength(65);
    expect(list[0]!.subject).toBe('Message 64');
    expect(list.at(-1)!.subject).toBe('Message 0');
    expect(new Set(list.map((m) => m.id)).size).toBe(65);
    expect(fake.log.filter((l) => l.path === '/messages').length).toBe(3);
  });

  it('reads JSON-LD and plain JSON alike', async () => {
    const { fake, mt } = await setup({ format: 'json' });
    const s = await mt.createSession({ domain: 'mailtm.test' });
    for (let i = 0; i < 31; i++) fake.deliver(s.email, { subject: `Plain ${i}`, text: 'x' });
    expect((await mt.listDomains()).domains.map((d) => d.domain)).toEqual(['mailtm.test', 'inbox-tm.test']);
    expect(await mt.listMessages(s)).toHaveLength(31);
    expect((await failure(mt.createSession({ prefix: s.email.split('@')[0]!, domain: 'mailtm.test' }))).kind).toBe(
      'prefix_taken',
    );
  });

  it('an HTML-only message, a text one with its sender, and attachments through their download URL', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const htmlId = fake.deliver(s.email, {
      from: { name: 'Shop', address: 'hello@shop.example' },
      subject: 'HTML only',
      html: '<p>Confirm <a href="https://shop.example/c?t=1">here</a></p>',
    });
    const pdf = Buffer.from('%PDF-1.4 fake pdf bytes \u0000\u0001', 'latin1');
    const attId = fake.deliver(s.email, {
      from: { name: 'Bank', address: 'otp@bank.example' },
      subject: 'With a file',
      text: 'Your code is 482913.',
      cc: ['copy@example.org'],
      attachments: [{ filename: 'statement.pdf', contentType: 'application/pdf', content: pdf }],
    });
    const html = await mt.readMessage(s, htmlId);
    expect(html).toMatchObject({
      id: htmlId,
      senderName: 'Shop',
      senderEmail: 'hello@shop.example',
      subject: 'HTML only',
      bodyText: null,
      attachments: [],
    });
    expect(html.bodyHtml).toContain('https://shop.example/c?t=1');
    const withFile = await mt.readMessage(s, attId);
    expect(withFile.bodyText).toBe('Your code is 482913.');
    expect(withFile.bodyHtml).toBeNull();
    expect(withFile.cc).toEqual(['copy@example.org']);
    expect(withFile.to).toEqual([s.email]);
    expect(withFile.attachments).toEqual([
      { id: 'ATTACH000001', filename: 'statement.pdf', contentType: 'application/pdf', size: pdf.length },
    ]);
    fake.log.length = 0;
    const bytes = await mt.downloadAttachment(s, attId, withFile.attachments[0]!);
    expect(bytes.equals(pdf)).toBe(true);
    expect(fake.log).toEqual([
      {
        method: 'GET',
        path: `/messages/${attId}/attachment/ATTACH000001`,
        status: 200,
        bearer: true,
        at: expect.any(Number),
      },
    ]);
  });

  it('a refused token (401 "Expired JWT Token") gets a new one from the saved password, once for calls at the same time', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    fake.deliver(s.email, { subject: 'hello', text: 'x' });
    fake.expireTokens();
    fake.log.length = 0;
    const [a, b] = await Promise.all([mt.listMessages(s), mt.listMessages(s)]);
    expect(a.map((m) => m.subject)).toEqual(['hello']);
    expect(b).toEqual(a);
    expect(fake.log.filter((l) => l.path === '/token')).toHaveLength(1);
    expect(fake.log.filter((l) => l.status === 401).length).toBeGreaterThanOrEqual(1);
    // Another process (a new client) with the saved session and its stale token: the same way back in.
    const other = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 });
    expect((await other.listMessages(s)).map((m) => m.subject)).toEqual(['hello']);
  });

  it('an account that is gone is invalid_token, in words that say so; without a password, too', async () => {
    const { mt } = await setup();
    const s = await mt.createSession();
    await mt.deleteAddress!(s);
    const gone = await failure(
      createMailtmProvider({ baseUrl: fake!.baseUrl, retries: 0, requestsPerSecond: 0 }).listMessages(s),
    );
    expect(gone.kind).toBe('invalid_token');
    expect(gone.message).toBe('mail.tm no longer knows this account (deleted, or its password changed)');
    const { password: _p, ...noPassword } = s;
    const refused = await failure(
      createMailtmProvider({ baseUrl: fake!.baseUrl, retries: 0 }).listMessages({
        ...noPassword,
        token: 'not-a-token',
      }),
    );
    expect(refused.kind).toBe('invalid_token');
  });

  it('429 is rate_limited with the Retry-After it asked for, past 8 requests a second as documented', async () => {
    const { fake, mt } = await setup({ ratePerSecond: 8 });
    // Unpaced (requestsPerSecond 0), a burst of 12 goes past mail.tm's limit.
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => mt.listDomains()));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as ApiError] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused)
      expect(e).toMatchObject({ kind: 'rate_limited', details: { status: 429, retryAfterSeconds: 1 } });
    fake.failNext(429, 1, 3, 'domains');
    expect(await failure(mt.listDomains())).toMatchObject({
      kind: 'rate_limited',
      details: { status: 429, retryAfterSeconds: 3 },
    });
  });

  it('deletes a message (then not_found) and the account', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const id = fake.deliver(s.email, { subject: 'bye', text: 'x' });
    await mt.deleteMessage(s, id);
    expect(await mt.listMessages(s)).toEqual([]);
    expect((await failure(mt.deleteMessage(s, id))).kind).toBe('not_found');
    expect((await failure(mt.readMessage(s, id))).kind).toBe('not_found');
    expect((await failure(mt.readMessage(s, '../me'))).kind).toBe('bad_request');
    await mt.deleteAddress!(s);
    expect(fake.accounts()).toEqual([]);
  });

  it('no token or password in any error, whatever failed', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const errors: ApiError[] = [];
    fake.failNext(500, 1, undefined, 'messages');
    errors.push(await failure(mt.listMessages(s)));
    errors.push(await failure(mt.readMessage(s, 'aaaaaaaaaaaaaaaaaaaaaaaa')));
    fake.expireTokens();
    await mt.deleteAddress!(s);
    errors.push(await failure(mt.listMessages(s)));
    for (const e of errors) {
      const text = `${e.message} ${JSON.stringify(e.details)} ${e.stack ?? ''}`;
      expect(text).not.toContain(s.token);
      expect(text).not.toContain(s.password!);
    }
  });

  it('finds the event hub beside the API (mercure.<domain> for api.<domain>)', () => {
    expect(mercureUrl('https://api.mail.tm/')).toBe('https://mercure.mail.tm/.well-known/mercure');
    expect(mercureUrl('https://api.mail.gw')).toBe('https://mercure.mail.gw/.well-known/mercure');
    expect(mercureUrl('http://127.0.0.1:4000/')).toBe('http://127.0.0.1:4000/.well-known/mercure');
    expect(mercureUrl('https://proxy.example/mailtm/')).toBe('https://proxy.example/mailtm/.well-known/mercure');
  });
});
