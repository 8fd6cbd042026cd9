/**
 * The client against the public service's shapes (docs/server/http-api.md): a fixture server answers those
 * shapes over real HTTP, for the same sessions and mail the reference service holds (it translates the
 * reference's answers), and the client must return the same results from both, except where the public
 * shape carries less (no sender_email in the list; no to/cc/headers/attachments in read-mail).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../../src/client/client-types';
import type { Session } from '../../../src/model/mail-types';
import { call } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { sendJson, startFixtureServer, type FixtureServer, type Recorded } from '../fixture-server';

let ref: TestService;
let pub: FixtureServer;
let refApi: TempMailApi;
let pubApi: TempMailApi;

/** Answers one request the way the public service does, with the reference service's data. */
async function publicAnswer(req: Recorded): Promise<{ status: number; body: unknown }> {
  const token = req.query.get('token') ?? '';
  const form = Object.fromEntries(new URLSearchParams(req.body));
  switch (req.path) {
    case '/domains': {
      const { json } = await call(ref.baseUrl, 'domains');
      return {
        status: 200,
        body: { status: 'success', domains: json?.domains, extmail_accounts: json?.extmail_accounts },
      };
    }
    case '/create-session': {
      const { status, json } = await call(ref.baseUrl, 'create-session', { form });
      return {
        status,
        body: { status: json?.status, email: json?.email, token: json?.token, expires_at: json?.expires_at },
      };
    }
    case '/check-mail': {
      const { json } = await call(ref.baseUrl, 'check-mail', { query: { token } });
      const messages = (json?.messages ?? []).map((m: Record<string, unknown>) => ({
        // Ids as numeric strings, no sender_email, and a field the client does not know.
        id: String(m.id),
        sender_name: m.sender_name,
        subject: m.subject,
        received_at: m.received_at,
        is_read: 0,
      }));
      return { status: 200, body: { status: 'success', messages, count: messages.length } };
    }
    case '/read-mail': {
      const { json } = await call(ref.baseUrl, 'read-mail', { query: { token, id: req.query.get('id') ?? '' } });
      const m = json?.message ?? {};
      const message = {
        id: String(m.id),
        subject: m.subject,
        sender_name: m.sender_name,
        sender_email: m.sender_email,
        received_at: m.received_at,
        body_text: m.body_text,
        body_html: m.body_html,
      };
      return { status: 200, body: { status: 'success', message } };
    }
    case '/delete-mail': {
      await call(ref.baseUrl, 'delete-mail', { form });
      return { status: 200, body: { status: 'success', message: 'Email deleted successfully' } };
    }
    default:
      return { status: 404, body: { status: 'error', error: 'not_found', message: 'No such route' } };
  }
}

beforeAll(async () => {
  ref = await startTestService({ extmailAccounts: [{ email: 'box@mail.test', dotInsensitive: false }] });
  pub = await startFixtureServer((req, res) => {
    publicAnswer(req).then(
      ({ status, body }) => sendJson(res, status, body),
      () => sendJson(res, 500, { status: 'error', error: 'internal' }),
    );
  });
  refApi = createApi({ baseUrl: ref.baseUrl });
  pubApi = createApi({ baseUrl: pub.baseUrl });
});
afterAll(async () => {
  await pub?.close();
  await ref?.close();
});

describe('the client on the public service shapes', () => {
  let session: Session;

  it('lists the same domains and accounts', async () => {
    expect(await pubApi.listDomains()).toEqual(await refApi.listDomains());
  });

  it('creates a session with a form-encoded POST and gets the same kind of session', async () => {
    session = await pubApi.createSession({ prefix: 'public-shape', domainId: 2 });
    expect(session.email).toBe('public-shape@inbox.test');
    expect(session.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const post = pub.requests.find((r) => r.path === '/create-session');
    expect(post?.method).toBe('POST');
    expect(post?.contentType).toContain('application/x-www-form-urlencoded');
    expect(new URLSearchParams(post?.body)).toEqual(new URLSearchParams({ prefix: 'public-shape', domain_id: '2' }));
    // It is a real session of the reference service.
    await expect(refApi.checkMail(session.token)).resolves.toEqual([]);
  });

  it('lists the same messages (ids from strings; sender_email absent -> "")', async () => {
    await sendMail(ref, {
      from: 'Grace Hopper <grace@example.org>',
      to: session.email,
      subject: 'Text and HTML',
      text: 'The text part.',
      html: '<p>The <i>HTML</i> part.</p>',
    });
    // No display name: sender_name is "" on both services.
    await sendMail(ref, {
      from: 'plain@example.org',
      to: session.email,
      subject: 'HTML only',
      html: '<p>Only HTML here.</p>',
    });
    const refList = await waitFor(
      async () => {
        const list = await refApi.checkMail(session.token);
        return list.length === 2 ? list : undefined;
      },
      { timeoutMs: 10_000, message: 'two messages' },
    );
    const pubList = await pubApi.checkMail(session.token);
    // The public shape has no has_attachments (a reference-service extension) either.
    expect(pubList).toEqual(refList.map(({ hasAttachments: _has, ...m }) => ({ ...m, senderEmail: '' })));
    expect(pubList.find((m) => m.subject === 'HTML only')?.senderName).toBe('');
  });

  it('reads the same message from the `message` wrapper (body_text null for HTML-only mail)', async () => {
    const list = await refApi.checkMail(session.token);
    for (const summary of list) {
      const fromRef = await refApi.readMail(session.token, summary.id);
      const fromPub = await pubApi.readMail(session.token, summary.id);
      const { headers: _headers, hasAttachments: _has, ...shared } = fromRef;
      // The public shape has no to/cc/attachments/headers: those come back empty, the rest is identical.
      expect(fromPub).toEqual({ ...shared, to: [], cc: [], attachments: [] });
      expect(fromPub.headers).toBeUndefined();
    }
    const htmlOnly = list.find((m) => m.subject === 'HTML only');
    const message = await pubApi.readMail(session.token, htmlOnly?.id ?? -1);
    expect(message.bodyText).toBeNull();
    expect(message.bodyHtml).toContain('Only HTML here.');
    expect(message.senderEmail).toBe('plain@example.org');
  });

  it('deletes with an answer that carries a `message` string', async () => {
    const [first] = await pubApi.checkMail(session.token);
    if (!first) throw new Error('no message to delete');
    await expect(pubApi.deleteMail(session.token, first.id)).resolves.toBeUndefined();
    const post = pub.requests.filter((r) => r.path === '/delete-mail').at(-1);
    expect(post?.contentType).toContain('application/x-www-form-urlencoded');
    expect((await refApi.checkMail(session.token)).map((m) => m.id)).not.toContain(first.id);
  });
});

describe('a hostile service that is not ours', () => {
  const ESC = '\x1b';
  const evil = {
    subject: `Hi ${ESC}]52;c;cm0gLXJm${ESC}\\there ${ESC}[2J\u009b31m`,
    name: `\u202eevil\u202c Bank\r\nX-Injected: 1`,
    text: `line one\r\n${ESC}]8;;http://evil.test${ESC}\\link${ESC}]8;;${ESC}\\\x07\x08\x00 \ud800 end`,
    html: `<p>${ESC}P$q"p${ESC}\\visible${ESC}_apc${ESC}\\</p>`,
  };
  let hostile: FixtureServer;
  beforeAll(async () => {
    hostile = await startFixtureServer((req, res) => {
      const summary = {
        id: '7',
        sender_name: evil.name,
        sender_email: `a${ESC}[1m@b.test`,
        subject: evil.subject,
        received_at: '2026-11-21 10:00:00',
      };
      if (req.path === '/check-mail') sendJson(res, 200, { status: 'success', messages: [summary] });
      else if (req.path === '/read-mail') {
        sendJson(res, 200, {
          status: 'success',
          message: {
            ...summary,
            body_text: evil.text,
            body_html: evil.html,
            to: [`me${ESC}]0;t\x07@x.test`],
            cc: 'a@x.test, b\x00@x.test',
            headers: { Date: `Sat${ESC}[5m`, ['__proto__']: 'x' },
            attachments: [
              { id: 1, filename: `\u202egpj.exe`, content_type: `text/${ESC}[2Jplain`, size: '12' },
              { filename: 'no id' },
            ],
          },
        });
      } else sendJson(res, 404, { status: 'error', error: 'not_found' });
    });
  });
  afterAll(() => hostile?.close());

  it('every string is terminal-safe by the time it is in our types, words intact', async () => {
    const client = createApi({ baseUrl: hostile.baseUrl });
    const [summary] = await client.checkMail('some-token');
    expect(summary).toEqual({
      id: '7',
      senderName: 'evil Bank X-Injected: 1',
      senderEmail: 'a@b.test',
      subject: 'Hi there ',
      receivedAt: new Date('2026-11-21T10:00:00Z'),
    });
    const m = await client.readMail('some-token', 7);
    expect(m.bodyText).toBe('line one\nlink \ufffd end');
    expect(m.bodyHtml).toBe('<p>visible</p>');
    expect(m.to).toEqual(['me@x.test']);
    expect(m.cc).toEqual(['a@x.test', 'b@x.test']);
    expect(m.headers).toEqual({ Date: 'Sat' });
    expect(m.attachments).toEqual([{ id: '1', filename: 'gpj.exe', contentType: 'text/plain', size: 12 }]);
    const all = JSON.stringify(m);
    expect(all).not.toMatch(/\\u001b|\\u009b|\\u0000|\\u0007|\\u202e|\\ud800/i);
  });
});
