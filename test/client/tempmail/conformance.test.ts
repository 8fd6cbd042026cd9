/**
 * The real client against the real reference service over loopback HTTP (and real SMTP for the mail):
 * every operation, every parameter, every POST encoding, every error code, field types and wire format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { PostEncoding, TempMailApi } from '../../../src/client/client-types';
import type { Session } from '../../../src/model/mail-types';
import { call } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { expectFailure } from '../assert';

const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const EXTMAIL = [
  { email: 'john.doe@gmail.test', dotInsensitive: true },
  { email: 'box@mail.test', dotInsensitive: false },
];

let svc: TestService;
let api: TempMailApi;
beforeAll(async () => {
  svc = await startTestService({ extmailAccounts: EXTMAIL, createPerMinute: 1000 });
  api = createApi({ baseUrl: svc.baseUrl });
});
afterAll(() => svc?.close());

/** Waits until the inbox of `session` lists a message with `subject`. */
function arrival(client: TempMailApi, session: Session, subject: string) {
  return waitFor(async () => (await client.checkMail(session.token)).find((m) => m.subject === subject), {
    timeoutMs: 10_000,
    message: `"${subject}" in the inbox`,
  });
}

describe('GET /domains', () => {
  it('lists the domains and external-mail accounts as project types', async () => {
    const list = await api.listDomains();
    expect(list).toEqual({
      domains: [
        { id: 1, domain: 'tempmail.test' },
        { id: 2, domain: 'inbox.test' },
      ],
      extmailAccounts: [
        { id: 1, email: 'john.doe@gmail.test' },
        { id: 2, email: 'box@mail.test' },
      ],
    });
  });

  it('on the wire: status success, integer ids, string names', async () => {
    const { status, json } = await call(svc.baseUrl, 'domains');
    expect(status).toBe(200);
    expect(json?.status).toBe('success');
    for (const d of json?.domains ?? []) {
      expect(Number.isInteger(d.id)).toBe(true);
      expect(typeof d.domain).toBe('string');
    }
    for (const a of json?.extmail_accounts ?? []) {
      expect(Number.isInteger(a.id)).toBe(true);
      expect(typeof a.email).toBe('string');
    }
  });
});

describe('POST /create-session', () => {
  it('with no parameters gives a random address on the first domain, a token and a UTC expiry', async () => {
    const before = Date.now();
    const s = await api.createSession();
    expect(s.email).toMatch(/^[a-z0-9._-]+@tempmail\.test$/);
    expect(s.token.length).toBeGreaterThanOrEqual(22);
    const lifetime = s.expiresAt!.getTime() - before;
    // 60 minutes, read as UTC; the wire has whole seconds.
    expect(lifetime).toBeGreaterThan(60 * 60_000 - 2000);
    expect(lifetime).toBeLessThan(60 * 60_000 + 2000);
  });

  for (const encoding of ['form', 'json', 'query'] as PostEncoding[]) {
    it(`reads prefix and domain_id sent as ${encoding}`, async () => {
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const s = await client.createSession({ prefix: `enc-${encoding}`, domainId: 2 });
      expect(s.email).toBe(`enc-${encoding}@inbox.test`);
    });

    it(`reads use_extmail with extmail_id sent as ${encoding}`, async () => {
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const s = await client.createSession({ useExtmail: true, extmailId: 2 });
      expect(s.email).toMatch(/^box\+[a-z0-9._-]+@mail\.test$/);
    });

    // Read as a flag (a JSON 1 as much as a form "1"): an alias, never a domain address or a 400.
    it(`reads use_extmail=1 alone, and with extmail_auto=1, sent as ${encoding}`, async () => {
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const alias = /^(j\.?o\.?h\.?n\.?d\.?o\.?e|box)\+[a-z0-9._-]+@(gmail|mail)\.test$/;
      expect((await client.createSession({ useExtmail: true })).email).toMatch(alias);
      // Round robin over the two accounts: two automatic picks in a row land on both.
      const picked = new Set<string>();
      for (let i = 0; i < 2; i += 1) {
        const s = await client.createSession({ useExtmail: true, extmailAuto: true });
        expect(s.email).toMatch(alias);
        picked.add(s.email.split('@')[1] ?? '');
      }
      expect([...picked].sort()).toEqual(['gmail.test', 'mail.test']);
    });
  }

  it('lower-cases a custom prefix', async () => {
    expect((await api.createSession({ prefix: 'Mixed.Case_1' })).email).toBe('mixed.case_1@tempmail.test');
  });

  it('use_extmail=1 alone picks an account automatically', async () => {
    const s = await api.createSession({ useExtmail: true });
    expect(s.email).toMatch(/^(j\.?o\.?h\.?n\.?d\.?o\.?e|box)\+[a-z0-9._-]+@(gmail|mail)\.test$/);
  });

  it('extmail_auto=1 spreads aliases over the accounts', async () => {
    const domains = new Set<string>();
    for (let i = 0; i < 4; i += 1) {
      const s = await api.createSession({ useExtmail: true, extmailAuto: true });
      expect(s.email).toContain('+');
      domains.add(s.email.split('@')[1] ?? '');
    }
    expect([...domains].sort()).toEqual(['gmail.test', 'mail.test']);
  });

  it('extmail_id of a dot-insensitive account gives a dot variant with a plus tag', async () => {
    const s = await api.createSession({ useExtmail: true, extmailId: 1 });
    const [local = '', domain] = s.email.split('@');
    expect(domain).toBe('gmail.test');
    expect(local.split('+')[0]?.replaceAll('.', '')).toBe('johndoe');
  });

  it('a prefix with an external account becomes the plus tag', async () => {
    expect((await api.createSession({ prefix: 'mytag', extmailId: 2 })).email).toBe('box+mytag@mail.test');
  });

  it('on the wire: status, email, token strings and expires_at as YYYY-MM-DD HH:MM:SS', async () => {
    const { status, json } = await call(svc.baseUrl, 'create-session', { form: { prefix: 'wire-check' } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 'success', email: 'wire-check@tempmail.test' });
    expect(typeof json?.token).toBe('string');
    expect(json?.expires_at).toMatch(WIRE_TIME);
  });

  it('400 for a bad prefix, with the service message', async () => {
    const e = await expectFailure(api.createSession({ prefix: 'no spaces!' }), 'bad_request');
    expect(e.details).toMatchObject({ status: 400, code: 'bad_request' });
    expect(e.message).toContain('prefix');
    await expectFailure(api.createSession({ prefix: 'a..b' }), 'bad_request');
    await expectFailure(api.createSession({ prefix: 'x'.repeat(65) }), 'bad_request');
  });

  it('400 for a reserved prefix', async () => {
    const e = await expectFailure(api.createSession({ prefix: 'postmaster' }), 'bad_request');
    expect(e.message).toContain('reserved');
  });

  it('400 for an unknown domain_id or extmail_id', async () => {
    await expectFailure(api.createSession({ domainId: 99 }), 'bad_request');
    await expectFailure(api.createSession({ useExtmail: true, extmailId: 99 }), 'bad_request');
  });

  it('409 for a prefix held by a live session', async () => {
    await api.createSession({ prefix: 'taken-name' });
    const e = await expectFailure(api.createSession({ prefix: 'taken-name' }), 'prefix_taken');
    expect(e.details.status).toBe(409);
  });
});

describe('mail through SMTP, read through the client', () => {
  let session: Session;
  beforeAll(async () => {
    session = await api.createSession({ prefix: 'reader' });
  });

  it('check-mail lists it and read-mail returns every field as project types', async () => {
    const sent = Date.now();
    await sendMail(svc, {
      from: 'Ada Lovelace <ada@example.org>',
      to: session.email,
      cc: 'other@example.org',
      subject: 'Your code is 482913',
      text: 'Hello,\n\tyour code is 482913.\n',
      html: '<p>Hello, your code is <b>482913</b>.</p>',
      attachments: [{ filename: 'notes.txt', content: 'attached bytes', contentType: 'text/plain' }],
    });
    const summary = await arrival(api, session, 'Your code is 482913');
    expect(summary).toMatchObject({ senderName: 'Ada Lovelace', senderEmail: 'ada@example.org' });
    expect(summary.id).toMatch(/^\d+$/);
    expect(summary.receivedAt).toBeInstanceOf(Date);
    expect(Math.abs((summary.receivedAt?.getTime() ?? 0) - sent)).toBeLessThan(5000);

    const message = await api.readMail(session.token, summary.id);
    expect(message).toMatchObject({ id: summary.id, subject: summary.subject, senderName: 'Ada Lovelace' });
    expect(message.receivedAt?.getTime()).toBe(summary.receivedAt?.getTime());
    expect(message.to.join(' ')).toContain(session.email);
    expect(message.cc.join(' ')).toContain('other@example.org');
    // Tabs are expanded on the way in: what reaches the UI is plain, safe text.
    expect(message.bodyText).toContain('        your code is 482913.');
    expect(message.bodyHtml).toContain('<b>482913</b>');
    expect(message.attachments).toEqual([
      { id: expect.stringMatching(/^\d+$/), filename: 'notes.txt', contentType: 'text/plain', size: 14 },
    ]);
  });

  it('on the wire: check-mail and read-mail field types and time format', async () => {
    await sendMail(svc, { to: session.email, subject: 'wire types', text: 'x' });
    await arrival(api, session, 'wire types');
    const list = await call(svc.baseUrl, 'check-mail', { query: { token: session.token } });
    expect(list.json?.status).toBe('success');
    for (const m of list.json?.messages ?? []) {
      expect(Number.isInteger(m.id)).toBe(true);
      for (const k of ['sender_name', 'sender_email', 'subject']) expect(typeof m[k]).toBe('string');
      expect(m.received_at).toMatch(WIRE_TIME);
    }
    const id = list.json?.messages[0].id;
    const read = await call(svc.baseUrl, 'read-mail', { query: { token: session.token, id } });
    expect(read.json?.status).toBe('success');
    expect(read.json?.message).toMatchObject({ id, subject: 'wire types' });
    expect(read.json?.message.received_at).toMatch(WIRE_TIME);
    expect(['string', 'object']).toContain(typeof read.json?.message.body_html);
  });

  it('mail to an external-mail alias reaches its session', async () => {
    const alias = await api.createSession({ useExtmail: true, extmailId: 1 });
    await sendMail(svc, { to: alias.email, subject: 'for the alias', text: 'hi' });
    await arrival(api, alias, 'for the alias');
  });

  for (const encoding of ['form', 'json', 'query'] as PostEncoding[]) {
    it(`delete-mail sent as ${encoding} removes the message`, async () => {
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const subject = `delete me ${encoding}`;
      await sendMail(svc, { to: session.email, subject, text: 'bye' });
      const m = await arrival(client, session, subject);
      await client.deleteMail(session.token, m.id);
      expect((await client.checkMail(session.token)).some((x) => x.id === m.id)).toBe(false);
      await expectFailure(client.readMail(session.token, m.id), 'not_found', session.token);
      await expectFailure(client.deleteMail(session.token, m.id), 'not_found', session.token);
    });
  }

  it('404 for an unknown message id', async () => {
    const e = await expectFailure(api.readMail(session.token, 987654), 'not_found', session.token);
    expect(e.details).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('401 for an unknown or missing token, on every token operation, with no token in the error', async () => {
    const bogus = 'bogus-token-0123456789abcdef';
    await expectFailure(api.checkMail(bogus), 'invalid_token', bogus);
    await expectFailure(api.readMail(bogus, 1), 'invalid_token', bogus);
    await expectFailure(api.deleteMail(bogus, 1), 'invalid_token', bogus);
    const e = await expectFailure(api.checkMail(''), 'invalid_token');
    expect(e.details.status).toBe(401);
  });
});
