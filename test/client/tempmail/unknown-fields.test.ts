/**
 * Unknown fields are ignored (docs/server/http-api.md: services add fields we do not know, and may add more):
 * a fixture server answers every operation with extra keys at the top level, inside `message`, inside
 * list items and inside attachment objects, and each result must be exactly the project object, with no
 * extra key leaked into our types (toStrictEqual: no extra keys, no undefined-valued keys).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../../src/client/client-types';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

const TOKEN = 'tok_unknown_fields_0123456789';
// Extra keys of every JSON type, including names close to ours and names of our own types' fields.
const EXTRA = {
  is_read: 0,
  folder: 'INBOX',
  flags: ['seen', 'flagged'],
  meta: { spam_score: 1.5, nested: { deep: true } },
  nothing: null,
  senderName: 'camelCase ours, not the wire name',
  bodyText: 'not the wire name either',
};

const summaryWire = {
  id: '41',
  sender_name: 'Ada',
  sender_email: 'ada@example.org',
  subject: 'Hello',
  received_at: '2026-03-04 05:06:07',
};

let srv: FixtureServer;
let api: TempMailApi;
beforeAll(async () => {
  srv = await startFixtureServer((req, res) => {
    switch (req.path) {
      case '/domains':
        return sendJson(res, 200, {
          status: 'success',
          ...EXTRA,
          domains: [{ id: 1, domain: 'one.test', ...EXTRA, active: true }],
          extmail_accounts: [{ id: '2', email: 'box@mail.test', ...EXTRA, dot_insensitive: true }],
          plans: [{ id: 9, name: 'premium' }],
        });
      case '/create-session':
        return sendJson(res, 200, {
          status: 'success',
          ...EXTRA,
          email: 'fresh@one.test',
          token: TOKEN,
          expires_at: '2026-03-04 06:06:07',
          expiresAt: 'ignored',
          quota: { used: 0, max: 100 },
        });
      case '/check-mail':
        return sendJson(res, 200, {
          status: 'success',
          ...EXTRA,
          count: 1,
          messages: [{ ...summaryWire, ...EXTRA, preview: 'Hello there', size: 1234 }],
        });
      case '/read-mail':
        return sendJson(res, 200, {
          status: 'success',
          ...EXTRA,
          message: {
            ...summaryWire,
            ...EXTRA,
            body_text: 'plain body',
            body_html: '<p>html body</p>',
            to: ['me@one.test'],
            cc: [],
            raw_size: 99,
            attachments: [
              {
                id: 3,
                filename: 'a.txt',
                content_type: 'text/plain',
                size: 12,
                ...EXTRA,
                sha256: 'ab'.repeat(32),
                inline: false,
              },
            ],
          },
        });
      case '/delete-mail':
        return sendJson(res, 200, { status: 'success', ...EXTRA, message: 'Email deleted successfully', deleted: 1 });
      default:
        return sendJson(res, 404, { status: 'error', error: 'not_found' });
    }
  });
  api = createApi({ baseUrl: srv.baseUrl });
});
afterAll(() => srv?.close());

describe('unknown fields in the answers are ignored', () => {
  it('listDomains: top level, domain items and account items', async () => {
    expect(await api.listDomains()).toStrictEqual({
      domains: [{ id: 1, domain: 'one.test' }],
      extmailAccounts: [{ id: 2, email: 'box@mail.test' }],
    });
  });

  it('createSession: top level', async () => {
    expect(await api.createSession()).toStrictEqual({
      email: 'fresh@one.test',
      token: TOKEN,
      expiresAt: new Date('2026-03-04T06:06:07Z'),
    });
  });

  it('checkMail: top level and list items', async () => {
    expect(await api.checkMail(TOKEN)).toStrictEqual([
      {
        id: '41',
        senderName: 'Ada',
        senderEmail: 'ada@example.org',
        subject: 'Hello',
        receivedAt: new Date('2026-03-04T05:06:07Z'),
      },
    ]);
  });

  it('readMail: top level, inside `message` and inside an attachment', async () => {
    expect(await api.readMail(TOKEN, 41)).toStrictEqual({
      id: '41',
      senderName: 'Ada',
      senderEmail: 'ada@example.org',
      subject: 'Hello',
      receivedAt: new Date('2026-03-04T05:06:07Z'),
      to: ['me@one.test'],
      cc: [],
      bodyText: 'plain body',
      bodyHtml: '<p>html body</p>',
      attachments: [{ id: '3', filename: 'a.txt', contentType: 'text/plain', size: 12 }],
    });
  });

  it('deleteMail: top level', async () => {
    await expect(api.deleteMail(TOKEN, 41)).resolves.toBeUndefined();
  });
});
