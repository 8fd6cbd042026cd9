import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { ApiError, type ApiErrorKind } from '../../src/client/api-error';
import type { ApiOptions, TempMailApi } from '../../src/client/client-types';
import { closedPort, sendJson, startFixtureServer, type FixtureServer } from './fixture-server';

const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const okList = { status: 'success', messages: [] };

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv.close());

function api(options: Partial<ApiOptions> = {}): TempMailApi {
  return createApi({ baseUrl: srv.baseUrl, retryBaseDelayMs: 10, ...options });
}

/** Every way an error can be printed, logged or serialized: none may contain the token. */
function expectNoToken(error: unknown): void {
  const e = error as Error;
  const dumps = [
    inspect(e, { depth: Infinity, showHidden: true }),
    JSON.stringify(e),
    JSON.stringify(Object.getOwnPropertyDescriptors(e)),
    String(e),
    e.message,
    e.stack ?? '',
  ];
  for (const dump of dumps) expect(dump).not.toContain(TOKEN);
  expect(e.cause).toBeUndefined();
}

/** Runs `fn`, expects an ApiError of `kind`, checks it is token-free, and returns it. */
async function failure(fn: () => Promise<unknown>, kind: ApiErrorKind): Promise<ApiError> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected the call to fail').toBeInstanceOf(ApiError);
  const e = caught as ApiError;
  expect(e.kind, e.message).toBe(kind);
  expectNoToken(e);
  // Messages are short and human: no URL, no stack, no HTML.
  expect(e.message).not.toMatch(/https?:|127\.0\.0\.1|<|\n/);
  expect(e.message.length).toBeLessThan(240);
  return e;
}

describe('retries', () => {
  it('a GET that meets a 500 is retried and then succeeds', async () => {
    srv.handle((_req, res) =>
      srv.requests.length === 1
        ? sendJson(res, 500, { status: 'error', error: 'internal' })
        : sendJson(res, 200, okList),
    );
    await expect(api().checkMail(TOKEN)).resolves.toEqual([]);
    expect(srv.requests.map((r) => r.path)).toEqual(['/check-mail', '/check-mail']);
  });

  it('a GET that keeps failing is tried 1 + retries times, then surfaces a service error', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 503, { status: 'error', error: 'storage_unavailable', message: 'disk full' }),
    );
    const e = await failure(() => api({ retries: 2 }).checkMail(TOKEN), 'service');
    expect(srv.requests).toHaveLength(3);
    expect(e.details).toMatchObject({ status: 503, code: 'storage_unavailable' });
    expect(e.message).toContain('disk full');
  });

  it('a GET whose connection is reset is retried (network errors)', async () => {
    srv.handle((_req, res, raw) => (srv.requests.length === 1 ? raw.socket.destroy() : sendJson(res, 200, okList)));
    await expect(api().checkMail(TOKEN)).resolves.toEqual([]);
    expect(srv.requests).toHaveLength(2);
  });

  it('create-session meeting a 500 is not retried: exactly one request', async () => {
    srv.handle((_req, res) => sendJson(res, 500, { status: 'error', error: 'internal', message: 'boom' }));
    await failure(() => api({ retries: 5 }).createSession({ prefix: 'alice' }), 'service');
    expect(srv.requests).toHaveLength(1);
  });

  it('create-session whose connection is reset is not retried either', async () => {
    srv.handle((_req, _res, raw) => raw.socket.destroy());
    await failure(() => api({ retries: 5 }).createSession(), 'network');
    expect(srv.requests).toHaveLength(1);
  });

  it('delete-mail meeting a 500 is not retried', async () => {
    srv.handle((_req, res) => sendJson(res, 500, { status: 'error', error: 'internal' }));
    await failure(() => api({ retries: 5 }).deleteMail(TOKEN, 3), 'service');
    expect(srv.requests).toHaveLength(1);
  });

  it('a 429 is surfaced at once with Retry-After in seconds, not retried', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 429, { status: 'error', error: 'rate_limited', message: 'slow down' }, { 'retry-after': '7' }),
    );
    const e = await failure(() => api().checkMail(TOKEN), 'rate_limited');
    expect(e.details.retryAfterSeconds).toBe(7);
    expect(e.message).toBe('Too many requests to the service');
    expect(srv.requests).toHaveLength(1);
  });

  it('a 429 with an HTTP-date Retry-After gives the seconds until then', async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    srv.handle((_req, res) => sendJson(res, 429, { status: 'error', error: 'rate_limited' }, { 'retry-after': at }));
    const e = await failure(() => api().createSession(), 'rate_limited');
    expect(e.details.retryAfterSeconds).toBeGreaterThanOrEqual(115);
    expect(e.details.retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it('a 503 asking for a long wait is surfaced with retryAfterSeconds instead of waited on', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 503, { status: 'error', error: 'storage_unavailable' }, { 'retry-after': '60' }),
    );
    const e = await failure(() => api().checkMail(TOKEN), 'service');
    expect(e.details.retryAfterSeconds).toBe(60);
    expect(srv.requests).toHaveLength(1);
  });
});

describe('answers that are not what the client expects', () => {
  it('an HTML error page with 502 is a service error, without the HTML', async () => {
    srv.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const e = await failure(() => api({ retries: 0 }).listDomains(), 'service');
    expect(e.details.status).toBe(502);
    expect(e.message).toBe('The service failed (HTTP 502)');
  });

  it('an HTML page with 200 (a captive portal) is a bad response', async () => {
    srv.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Log in to the Wi-Fi</title>');
    });
    await failure(() => api().listDomains(), 'bad_response');
  });

  it('malformed and empty JSON bodies are bad responses', async () => {
    srv.handle((_req, res) => res.end('{"status":"success","messages":[{"id":1,'));
    await failure(() => api().checkMail(TOKEN), 'bad_response');
    srv.handle((_req, res) => res.end(''));
    await failure(() => api().checkMail(TOKEN), 'bad_response');
    srv.handle((_req, res) => res.end('[1,2,3]'));
    await failure(() => api().checkMail(TOKEN), 'bad_response');
  });

  // (One bad entry of a list costs only itself: test/client/tempmail/listing-bounds.test.ts.)
  const wrongShapes: [string, (a: TempMailApi) => Promise<unknown>, unknown][] = [
    ['messages is not a list', (a) => a.checkMail(TOKEN), { status: 'success', messages: 'none' }],
    [
      'a session without a token',
      (a) => a.createSession(),
      { status: 'success', email: 'a@b.test', expires_at: '2026-01-01 00:00:00' },
    ],
    [
      'a session without an email',
      (a) => a.createSession(),
      { status: 'success', token: 'abcdef', expires_at: '2026-01-01 00:00:00' },
    ],
    [
      'a session with a token holding controls',
      (a) => a.createSession(),
      { status: 'success', email: 'a@b.test', token: 'ab\x1b[2Jcd', expires_at: '2026-01-01 00:00:00' },
    ],
    [
      'a session with a bad expiry',
      (a) => a.createSession(),
      { status: 'success', email: 'a@b.test', token: 'abcdef', expires_at: 'soon' },
    ],
    ['no domains list', (a) => a.listDomains(), { status: 'success', extmail_accounts: [] }],
    ['read-mail without a message', (a) => a.readMail(TOKEN, 1), { status: 'success', message: 'gone' }],
    ['no status at all', (a) => a.checkMail(TOKEN), { messages: [] }],
  ];
  for (const [name, fn, body] of wrongShapes) {
    it(`JSON of the wrong shape: ${name}`, async () => {
      srv.handle((_req, res) => sendJson(res, 200, body));
      await failure(() => fn(api()), 'bad_response');
    });
  }

  it('{status:"error"} with HTTP 200 is an error, mapped by its code', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 200, { status: 'error', error: 'invalid_token', message: 'no such session' }),
    );
    await failure(() => api().checkMail(TOKEN), 'invalid_token');
    srv.handle((_req, res) =>
      sendJson(res, 200, {
        status: 'error',
        error: 'quota\x1b[31m_exceeded',
        message: 'Quota \x1b]0;pwned\x07exceeded',
      }),
    );
    const e = await failure(() => api().checkMail(TOKEN), 'service');
    expect(e.details.code).toBe('quota_exceeded');
    expect(e.message).toBe('The service failed (quota_exceeded, HTTP 200): Quota exceeded');
  });

  it('a redirect is not followed (the token must not travel elsewhere)', async () => {
    const other = await startFixtureServer((_req, res) => sendJson(res, 200, okList));
    try {
      srv.handle((_req, res) => {
        res.writeHead(302, { location: `${other.baseUrl}check-mail?token=${TOKEN}` });
        res.end();
      });
      await failure(() => api().checkMail(TOKEN), 'bad_response');
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('an answer larger than maxResponseBytes is refused', async () => {
    srv.handle((_req, res) => sendJson(res, 200, { status: 'success', messages: [], pad: 'x'.repeat(200_000) }));
    await failure(() => api({ maxResponseBytes: 10_000 }).checkMail(TOKEN), 'bad_response');
  });
});

describe('status codes and service codes map to kinds', () => {
  const table: [number, string | undefined, ApiErrorKind][] = [
    [400, 'bad_request', 'bad_request'],
    [400, undefined, 'bad_request'],
    [401, 'invalid_token', 'invalid_token'],
    [401, undefined, 'invalid_token'],
    [404, 'not_found', 'not_found'],
    [409, 'prefix_taken', 'prefix_taken'],
    [410, 'session_expired', 'session_expired'],
    [410, undefined, 'session_expired'],
    [413, 'too_large', 'bad_request'],
    [418, undefined, 'bad_request'],
    [429, undefined, 'rate_limited'],
    [500, 'internal', 'service'],
    [400, 'session_expired', 'session_expired'],
  ];
  for (const [status, code, kind] of table) {
    it(`HTTP ${status}${code ? ` with ${code}` : ''} -> ${kind}`, async () => {
      srv.handle((_req, res) =>
        sendJson(
          res,
          status,
          code ? { status: 'error', error: code, message: 'Said by the service' } : { status: 'error' },
        ),
      );
      const e = await failure(() => api({ retries: 0 }).readMail(TOKEN, 5), kind);
      expect(e.details.status).toBe(status);
    });
  }

  it('a bad request carries the service message, made terminal-safe and token-free', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 400, { status: 'error', error: 'bad_request', message: `prefix \x1b[2Jtoo long for ${TOKEN}` }),
    );
    const e = await failure(() => api().checkMail(TOKEN), 'bad_request');
    expect(e.message).toBe('prefix too long for [redacted]');
  });
});

describe('transport failures', () => {
  it('a closed port is a network error with a plain message', async () => {
    const port = await closedPort();
    const dead = createApi({ baseUrl: `http://127.0.0.1:${port}/`, retries: 1, retryBaseDelayMs: 10 });
    const e = await failure(() => dead.checkMail(TOKEN), 'network');
    expect(e.message).toBe('The service is unreachable (connection refused)');
    await failure(() => dead.deleteMail(TOKEN, 1), 'network');
    const query = createApi({ baseUrl: `http://127.0.0.1:${port}/`, postEncoding: 'query' });
    await failure(() => query.deleteMail(TOKEN, 1), 'network');
  });

  // Issue 36: a GET that timed out was tried twice more, so the wait taken was three times the one said.
  it('a server that never answers gives a timeout after timeoutMs, one try: the wait said is the wait taken', async () => {
    srv.handle(() => undefined);
    const e = await failure(() => api({ timeoutMs: 300, retries: 2 }).checkMail(TOKEN), 'timeout');
    expect(e.message).toBe('The service did not answer within 0.3 s');
    expect(srv.requests).toHaveLength(1);
    await failure(() => api({ timeoutMs: 300, retries: 2 }).readMail(TOKEN, 1), 'timeout');
    expect(srv.requests).toHaveLength(2);
  });

  it('a server that trickles its answer a byte at a time: a timeout after timeoutMs, one try', async () => {
    srv.handle(() => undefined);
    srv.stall('trickle');
    try {
      const e = await failure(() => api({ timeoutMs: 500, retries: 2 }).checkMail(TOKEN), 'timeout');
      expect(e.message).toBe('The service did not answer within 0.5 s');
      expect(srv.requests).toHaveLength(1);
    } finally {
      srv.stall(undefined);
    }
  });

  it('a GET refused by a 503 is still tried again', async () => {
    srv.handle((_req, res) => sendJson(res, 503, { status: 'error', error: 'maintenance' }));
    await failure(() => api({ retries: 1, retryBaseDelayMs: 10 }).checkMail(TOKEN), 'service');
    expect(srv.requests).toHaveLength(2);
  });

  it('create-session that times out is not retried', async () => {
    srv.handle(() => undefined);
    await failure(() => api({ timeoutMs: 300, retries: 3 }).createSession(), 'timeout');
    expect(srv.requests).toHaveLength(1);
  });

  it('a base URL that is not http(s) is refused at creation', () => {
    expect(() => createApi({ baseUrl: 'not a url' })).toThrow(ApiError);
    expect(() => createApi({ baseUrl: 'ftp://127.0.0.1/' })).toThrow(ApiError);
  });

  it('a message id that is not an integer is refused before any request', async () => {
    srv.handle((_req, res) => sendJson(res, 200, okList));
    await failure(() => api().readMail(TOKEN, Number.NaN), 'bad_request');
    await failure(() => api().deleteMail(TOKEN, 1.5), 'bad_request');
    expect(srv.requests).toHaveLength(0);
  });
});
