/**
 * readSource: the reference service's GET /raw-mail through the real client, byte for byte; and on a
 * service without that route (the interface has none), every field read-mail returned, terminal-safe.
 * Also the listing's has_attachments extension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { ApiError } from '../../../src/client/api-error';
import type { TempMailApi } from '../../../src/client/client-types';
import { isTerminalSafe } from '../../../src/text/safe-text';
import { sendMail, sendRaw, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let svc: TestService;
let api: TempMailApi;
let fixture: FixtureServer;
beforeAll(async () => {
  svc = await startTestService();
  api = createApi({ baseUrl: svc.baseUrl, retries: 0 });
  fixture = await startFixtureServer();
});
afterAll(async () => {
  await svc?.close();
  await fixture?.close();
});

// 8-bit Latin-1 in the body and a hostile subject: the source comes back as bytes, untouched.
const RAW = Buffer.concat([
  Buffer.from(
    'From: Ann <ann@example.org>\r\nTo: someone@example.org\r\nSubject: =?UTF-8?B?SGVsbG8=?= \x1b[31mred\r\n' +
      'MIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n',
    'latin1',
  ),
  Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a]),
]);

describe('readSource', () => {
  it('returns the message exactly as the service received it', async () => {
    const session = await api.createSession();
    await sendRaw(svc, session.email, RAW);
    const [listed] = await waitFor(async () => {
      const list = await api.checkMail(session.token);
      return list.length > 0 ? list : null;
    });
    const source = await api.readSource!(session.token, listed!.id);
    expect(source.kind).toBe('raw');
    expect(source.kind === 'raw' && source.bytes.equals(RAW)).toBe(true);
  });

  it('an unknown message stays not_found with the service words (not "no such route")', async () => {
    const session = await api.createSession();
    const error = await api.readSource!(session.token, 4242).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('not_found');
    expect((error as ApiError).message).toMatch(/4242/);
  });

  it('without the route: every field read-mail returned, in order, nested ones as JSON, all terminal-safe', async () => {
    const client = createApi({ baseUrl: fixture.baseUrl, retries: 0 });
    fixture.handle((req, res) => {
      if (req.path === '/raw-mail') {
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<html><body>404 Not Found</body></html>');
      }
      sendJson(res, 200, {
        status: 'success',
        message: {
          id: 7,
          subject: 'Hi \x1b]0;owned\x07there',
          sender_email: 'a@example.org',
          body_text: 'line one\nline \x9b31m two',
          spam_score: 1.5,
          labels: ['x', { deep: 'y\x1b[2J' }],
        },
      });
    });
    const source = await client.readSource!('tok-0123456789', 7);
    expect(source.kind).toBe('fields');
    if (source.kind !== 'fields') return;
    expect(source.fields.map(([name]) => name)).toEqual([
      'id',
      'subject',
      'sender_email',
      'body_text',
      'spam_score',
      'labels',
    ]);
    const byName = Object.fromEntries(source.fields);
    expect(byName.id).toBe('7');
    expect(byName.subject).toBe('Hi there');
    expect(byName.body_text).toBe('line one\nline  two');
    expect(byName.labels).toContain('"deep"');
    for (const [name, value] of source.fields) expect(isTerminalSafe(name) && isTerminalSafe(value)).toBe(true);
    expect(fixture.requests.map((r) => r.path)).toEqual(['/raw-mail', '/read-mail']);
  });

  it('a service error on the raw route is the error, not a fallback', async () => {
    const client = createApi({ baseUrl: fixture.baseUrl, retries: 0 });
    fixture.handle((_req, res) => sendJson(res, 500, { status: 'error', error: 'internal', message: 'disk on fire' }));
    const error = await client.readSource!('tok-0123456789', 1).catch((e: unknown) => e);
    expect((error as ApiError).kind).toBe('service');
    expect(fixture.requests.map((r) => r.path)).toEqual(['/raw-mail']);
  });
});

describe('has_attachments in the listing', () => {
  it('says which listed messages carry attachments', async () => {
    const session = await api.createSession();
    await sendMail(svc, { to: session.email, subject: 'plain', text: 'no files' });
    await sendMail(svc, {
      to: session.email,
      subject: 'files',
      text: 'see',
      attachments: [{ filename: 'a.txt', content: 'a' }],
    });
    const list = await waitFor(async () => {
      const l = await api.checkMail(session.token);
      return l.length === 2 ? l : null;
    });
    expect(Object.fromEntries(list.map((m) => [m.subject, m.hasAttachments]))).toEqual({ plain: false, files: true });
  });
});
