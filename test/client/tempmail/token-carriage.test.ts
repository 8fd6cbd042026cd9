/**
 * Where the client puts a session's token, against services over real HTTP on loopback: in an
 * Authorization header for a service that says (Tempmail-Capabilities: bearer) it takes one, from the
 * first call on; as a parameter for a service of the interface alone, which learns nothing new: its
 * first refusal of a call whose token it did not see costs one request, once. A token is never put in a
 * URL because a call failed for another reason (the service down, a 5xx, a 404).
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { expectFailure } from '../assert';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startTestService } from '../../harness/service';

const TOKEN = 'tok_0123456789abcdef0123456789abcdef';
const empty = { status: 'success', messages: [] };
const message = {
  status: 'success',
  message: { id: 1, subject: 's', sender_email: 'a@b.example', received_at: '2030-01-01 00:00:00', body_text: 'x' },
};

const cleanup = cleanupAfterEach();
let srv: FixtureServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

/** What each request carried: `header` (Authorization: Bearer), `query`, `body` or nothing. */
const seen: string[] = [];
function carried(raw: IncomingMessage, query: URLSearchParams, body: string): string {
  if (raw.headers.authorization === `Bearer ${TOKEN}`) return 'header';
  if (query.get('token') === TOKEN) return 'query';
  if (body.includes(TOKEN)) return 'body';
  return 'none';
}

describe('the token of a call', () => {
  it('goes in the Authorization header to a service that takes it there, from the first call on', async () => {
    seen.length = 0;
    srv = await startFixtureServer((req, res, raw) => {
      const where = carried(raw, req.query, req.body);
      seen.push(`${req.path} ${where}`);
      const caps = { 'tempmail-capabilities': 'bearer, events' };
      if (where !== 'header') return sendJson(res, 401, { status: 'error', error: 'invalid_token' }, caps);
      return sendJson(
        res,
        200,
        req.path === '/read-mail' ? message : req.path === '/delete-mail' ? { status: 'success' } : empty,
        caps,
      );
    });
    const api = createApi({ baseUrl: srv.baseUrl });
    await api.checkMail(TOKEN);
    await api.readMail(TOKEN, 1);
    await api.deleteMail(TOKEN, 1);
    expect(seen).toEqual(['/check-mail header', '/read-mail header', '/delete-mail header']);
  });

  it('goes as a parameter to a service of the interface alone: one refused call in the header first, then never again', async () => {
    seen.length = 0;
    srv = await startFixtureServer((req, res, raw) => {
      const where = carried(raw, req.query, req.body);
      seen.push(`${req.path} ${where}`);
      if (where === 'header' || where === 'none')
        return sendJson(res, 401, { status: 'error', error: 'invalid_token', message: 'token required' });
      return sendJson(
        res,
        200,
        req.path === '/read-mail' ? message : req.path === '/delete-mail' ? { status: 'success' } : empty,
      );
    });
    const api = createApi({ baseUrl: srv.baseUrl });
    await expect(api.checkMail(TOKEN)).resolves.toEqual([]);
    await api.readMail(TOKEN, 1);
    await api.deleteMail(TOKEN, 1);
    await api.checkMail(TOKEN);
    expect(seen).toEqual([
      '/check-mail header',
      '/check-mail query',
      '/read-mail query',
      '/delete-mail body',
      '/check-mail query',
    ]);
  });

  it('learns from a call without a token (create-session): a service that said nothing gets it as a parameter at once', async () => {
    seen.length = 0;
    srv = await startFixtureServer((req, res, raw) => {
      seen.push(`${req.path} ${carried(raw, req.query, req.body)}`);
      if (req.path === '/create-session')
        return sendJson(res, 200, {
          status: 'success',
          email: 'a@tempmail.test',
          token: TOKEN,
          expires_at: '2030-01-01 00:00:00',
        });
      return sendJson(res, 200, empty);
    });
    const api = createApi({ baseUrl: srv.baseUrl });
    await api.createSession();
    await api.checkMail(TOKEN);
    expect(seen).toEqual(['/create-session none', '/check-mail query']);
  });

  it('is not sent as a parameter after a failure that is not a refusal of the token (5xx, 404, a reset)', async () => {
    seen.length = 0;
    srv = await startFixtureServer((req, res, raw) => {
      seen.push(`${req.path} ${carried(raw, req.query, req.body)}`);
      if (req.path === '/check-mail') return sendJson(res, 503, { status: 'error', error: 'storage_unavailable' });
      if (req.path === '/read-mail')
        return sendJson(res, 404, { status: 'error', error: 'not_found', message: 'No message with id 9' });
      raw.socket.destroy();
    });
    const api = createApi({ baseUrl: srv.baseUrl, retries: 0 });
    await expectFailure(api.checkMail(TOKEN), 'service', TOKEN);
    await expectFailure(api.readMail(TOKEN, 9), 'not_found', TOKEN);
    await expectFailure(api.deleteMail(TOKEN, 9), 'network', TOKEN);
    expect(seen).toEqual(['/check-mail header', '/read-mail header', '/delete-mail header']);
  });

  it('stays in the header when the first answer is a refusal that says the service takes it there', async () => {
    // A token the service does not know (deleted by an operator, or purged) met 401 in the header, and the
    // client, having learned nothing from an error answer, sent it again in the URL: into proxies' logs.
    seen.length = 0;
    srv = await startFixtureServer((req, res, raw) => {
      seen.push(`${req.path} ${carried(raw, req.query, req.body)}`);
      return sendJson(
        res,
        401,
        { status: 'error', error: 'invalid_token', message: 'Unknown session token' },
        { 'tempmail-capabilities': 'bearer, events' },
      );
    });
    const api = createApi({ baseUrl: srv.baseUrl });
    await expectFailure(api.checkMail(TOKEN), 'invalid_token', TOKEN);
    await expectFailure(api.readMail(TOKEN, 1), 'invalid_token', TOKEN);
    expect(seen).toEqual(['/check-mail header', '/read-mail header']);

    // The same against the reference service: one request, not a second one with the token in its URL.
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    await expectFailure(createApi({ baseUrl: svc.baseUrl }).checkMail(TOKEN), 'invalid_token', TOKEN);
    expect(svc.logs.filter((l) => l.startsWith('http GET /check-mail '))).toEqual([
      expect.stringMatching(/^http GET \/check-mail 401 invalid_token/),
    ]);
  });
});
