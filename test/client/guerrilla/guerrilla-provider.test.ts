/**
 * The guerrilla provider against the Guerrilla Mail conformance fake over real HTTP: its fixed domains,
 * a random or named address, the welcome message left out, every page of the list, HTML and plain
 * bodies with their escaped subjects decoded, attachments, delete, a session the service forgot linked
 * again by name (no mail lost), `false` for a message it does not have, the 60-minute lifetime, 429.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/client/api-error';
import { createGuerrillaProvider, GUERRILLA_DOMAINS } from '../../../src/client/guerrilla/guerrilla-provider';
import type { MailProvider } from '../../../src/client/client-types';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';

let fake: GuerrillaFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(now?: () => number): Promise<{ fake: GuerrillaFake; gm: MailProvider }> {
  fake = await startGuerrillaFake();
  return { fake, gm: createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0, now }) };
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

describe('guerrilla provider', () => {
  it('lists its fixed domains without asking the service', async () => {
    const { fake, gm } = await setup();
    const list = await gm.listDomains();
    expect(list.domains.map((d) => d.domain)).toEqual([...GUERRILLA_DOMAINS]);
    expect(list.domains[0]).toEqual({ id: 1, domain: 'guerrillamail.com' });
    expect(list.extmailAccounts).toEqual([]);
    expect(fake.log).toEqual([]);
  });

  it('a random address on the chosen domain, 60 minutes, its welcome message left out', async () => {
    const { fake, gm } = await setup();
    const before = Date.now();
    const s = await gm.createSession({ domain: 'sharklasers.com' });
    expect(s.email).toMatch(/^[a-z][0-9a-f]{8}@sharklasers\.com$/);
    expect(s.expiresAt!.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 60 * 60_000);
    expect(s.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect(fake.inbox(s.email)).toEqual([1]);
    expect(await gm.listMessages(s)).toEqual([]);
  });

  it("a named address: set_email_user; its inbox is the name's, on any of the domains", async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession({ prefix: 'Jane.Doe', domain: 'grr.la' });
    expect(s.email).toBe('jane.doe@grr.la');
    fake.deliver('jane.doe@guerrillamailblock.com', {
      from: 'Shop <hello@shop.example>',
      subject: 'Tom & Jerry <3',
      body: '<p>Hi</p>',
    });
    const [m] = await gm.listMessages(s);
    expect(m).toMatchObject({ senderName: 'Shop', senderEmail: 'hello@shop.example', subject: 'Tom & Jerry <3' });
    expect((await failure(gm.createSession({ prefix: 'no spaces' }))).kind).toBe('bad_request');
  });

  it('every page of the list, newest first', async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession();
    const base = Date.now() - 100_000;
    for (let i = 0; i < 25; i++)
      fake.deliver(s.email, { subject: `Message ${i}`, body: 'x', at: new Date(base + i * 1000) });
    const list = await gm.listMessages(s);
    expect(list).toHaveLength(25);
    expect(list[0]!.subject).toBe('Message 24');
    expect(list.at(-1)!.subject).toBe('Message 0');
    expect(fake.log.filter((l) => l.f === 'get_email_list').length).toBeGreaterThanOrEqual(3);
  });

  it('HTML and plain bodies, the recipient, attachments and their bytes', async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession({ prefix: 'reader' });
    const html = fake.deliver(s.email, {
      from: 'no-reply@acme.example',
      subject: 'Code &amp; more',
      body: '<p>Your code is <b>482913</b></p>',
    });
    const file = Buffer.from('col1,col2\n1,2\n');
    const plain = fake.deliver(s.email, {
      from: '"Bank" <otp@bank.example>',
      subject: 'Plain',
      body: 'Your code is 204816.',
      contentType: 'text/plain; charset=utf-8',
      attachments: [{ filename: 'report.csv', contentType: 'text/csv', content: file }],
    });
    const h = await gm.readMessage(s, String(html));
    expect(h).toMatchObject({
      id: String(html),
      senderEmail: 'no-reply@acme.example',
      subject: 'Code &amp; more',
      bodyText: null,
      to: ['reader@guerrillamailblock.com'],
    });
    expect(h.bodyHtml).toContain('<b>482913</b>');
    const p = await gm.readMessage(s, String(plain));
    expect(p).toMatchObject({
      senderName: 'Bank',
      senderEmail: 'otp@bank.example',
      bodyText: 'Your code is 204816.',
      bodyHtml: null,
    });
    expect(p.attachments).toEqual([{ id: '2', filename: 'report.csv', contentType: 'text/csv', size: 0 }]);
    expect((await gm.downloadAttachment(s, String(plain), p.attachments[0]!)).equals(file)).toBe(true);
  });

  it('delete, and a message it does not have (`false`) is not_found', async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession();
    const id = String(fake.deliver(s.email, { subject: 'bye', body: 'x' }));
    await gm.deleteMessage(s, id);
    expect(fake.inbox(s.email)).toEqual([1]);
    expect((await failure(gm.readMessage(s, id))).kind).toBe('not_found');
    expect((await failure(gm.readMessage(s, 'abc'))).kind).toBe('bad_request');
  });

  it('a session the service forgot is linked again by name: no mail is lost, none of another inbox shows', async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession({ prefix: 'keeper' });
    fake.deliver(s.email, { subject: 'before', body: 'x' });
    expect((await gm.listMessages(s)).map((m) => m.subject)).toEqual(['before']);
    fake.expireSessions();
    fake.deliver(s.email, { subject: 'after', body: 'x' });
    // This client linked less than 5 minutes ago, so it asks with its (now forgotten) token first.
    expect((await gm.listMessages(s)).map((m) => m.subject)).toEqual(['after', 'before']);
    // Another process, with only the saved session: links first.
    const other = createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0 });
    expect((await other.listMessages(s)).map((m) => m.subject)).toEqual(['after', 'before']);
    expect(fake.log.filter((l) => l.f === 'set_email_user').length).toBeGreaterThanOrEqual(3);
  });

  it('after 60 minutes the address is expired (session_expired), without asking the service', async () => {
    let clock = Date.now();
    const { fake, gm } = await setup(() => clock);
    const s = await gm.createSession();
    clock += 61 * 60_000;
    fake.log.length = 0;
    expect((await failure(gm.listMessages(s))).kind).toBe('session_expired');
    expect(fake.log).toEqual([]);
  });

  it('429 with Retry-After is rate_limited; forget_me ends the session', async () => {
    const { fake, gm } = await setup();
    const s = await gm.createSession();
    fake.failNext(429, 1, 7);
    expect(await failure(gm.listMessages(s))).toMatchObject({
      kind: 'rate_limited',
      details: { status: 429, retryAfterSeconds: 7 },
    });
    await gm.deleteAddress!(s);
    expect(fake.log.at(-1)).toEqual({ f: 'forget_me', status: 200 });
  });
});
