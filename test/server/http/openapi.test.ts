/**
 * docs/server/openapi.yaml against the service itself: the built serve (dist/cli.js) as a process, every
 * operation called, with its successes and its errors, and every answer checked against the description
 * (status, headers, body) by ApiCheck; a request that succeeded must have used only what the description
 * names, in the forms it names. Three services: one with the metrics, the admin API and tight event-stream
 * bounds; one whose sessions live a second, whose clients may make 60 requests a minute and whose request
 * heads must come within a second; one whose storage breaks. At the end, everything the description names
 * must have been exercised: each operation's own answers, each shared error answer once (but 500, which
 * only a bug gives), each parameter, each body type and each way of giving a token.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { openStream, rawExchange, request, type Call, type Exchanged } from './openapi-calls';
import { ApiCheck, loadSpec } from './openapi-check';

let api: ApiCheck;
const dirs: string[] = [];
const services: ServeReady[] = [];

beforeAll(async () => {
  const { spec, raw } = await loadSpec();
  api = new ApiCheck(spec, raw);
});
afterAll(async () => {
  for (const s of services) await stopServe(s);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Starts serve on a fresh data dir, with a config file of `config` and an admin token file. */
async function serve(args: string[], config: Record<string, unknown> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'tempmail-openapi-'));
  dirs.push(dir);
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  await writeFile(join(dir, 'admin-token'), ADMIN_TOKEN);
  await chmod(join(dir, 'admin-token'), 0o600);
  const proc = await startServeProcess([
    '--data-dir',
    join(dir, 'data'),
    '--config',
    join(dir, 'config.json'),
    ...args.map((a) => a.replace('ADMIN_TOKEN_FILE', join(dir, 'admin-token'))),
  ]);
  services.push(proc);
  return { proc, dir, base: proc.baseUrl };
}

const ADMIN_TOKEN = 'openapi-test-admin-token-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const admin = bearer(ADMIN_TOKEN);
const UNKNOWN_TOKEN = 'x'.repeat(43);

/** One request, its answer checked against the description (`as`: the component it must be instead). */
async function exchange(base: string, call: Call, status: number, as?: string): Promise<Exchanged> {
  const ex = await request(base, call);
  expect(
    api.check(ex.sent, ex.answer, as),
    `${ex.sent.method} ${call.path}: ${ex.answer.body.toString('utf8').slice(0, 300)}`,
  ).toEqual([]);
  expect(ex.answer.status, `${ex.sent.method} ${call.path}: ${ex.answer.body.toString('utf8').slice(0, 300)}`).toBe(
    status,
  );
  return ex;
}

const ok = (base: string, call: Call) => exchange(base, call, 200).then((ex) => ex.json!);
const error = async (base: string, call: Call, status: number, code: string, as?: string) => {
  const ex = await exchange(base, call, status, as);
  expect(ex.json?.error).toBe(code);
  return ex;
};

async function newSession(base: string) {
  return (await ok(base, { path: '/create-session', form: {} })) as { email: string; token: string };
}

/** Waits until the inbox of `token` lists `count` messages (unchecked polls: the wait is not the test). */
async function listed(base: string, token: string, count: number) {
  await waitFor(
    async () =>
      ((await request(base, { path: '/check-mail', headers: bearer(token) })).json?.messages?.length ?? 0) >= count,
    { message: `${count} message(s) listed` },
  );
}

describe('a serve with metrics, the admin API and event streams bounded to 1 a session and 2 in all', () => {
  let a: Awaited<ReturnType<typeof serve>>;
  let base: string;
  beforeAll(async () => {
    a = await serve(
      [
        '--domain',
        'tempmail.test',
        '--domain',
        'inbox.test',
        '--extmail-account',
        'someone@gmail.com',
        '--metrics',
        '--admin-token-file',
        'ADMIN_TOKEN_FILE',
      ],
      {
        eventStreamsPerSession: 1,
        // One client (this test, on 127.0.0.1) opens them all: its own share is not what is tested here.
        eventStreamsPerClient: 2,
        eventStreamsTotal: 2,
      },
    );
    base = a.base;
  });
  const mail = (to: string, subject: string, extra: Partial<Parameters<typeof sendMail>[1]> = {}) =>
    sendMail(a.proc, { to, subject, text: 'Hello', ...extra });

  it('GET /domains', async () => {
    expect(await ok(base, { path: '/domains' })).toMatchObject({
      domains: [
        { id: 1, domain: 'tempmail.test' },
        { id: 2, domain: 'inbox.test' },
      ],
      extmail_accounts: [{ id: 1, email: 'someone@gmail.com' }],
    });
  });

  it('POST /create-session by form, JSON and query; its refusals; its rate limit', async () => {
    await newSession(base);
    expect((await ok(base, { path: '/create-session', json: { prefix: 'openapi-json', domain_id: 2 } })).email).toBe(
      'openapi-json@inbox.test',
    );
    expect(
      (await ok(base, { method: 'POST', path: '/create-session', query: { prefix: 'openapi-query', domain_id: 1 } }))
        .email,
    ).toBe('openapi-query@tempmail.test');
    expect((await ok(base, { path: '/create-session', form: { use_extmail: 1, extmail_id: 1 } })).email).toMatch(
      /@gmail\.com$/,
    );
    expect(
      (await ok(base, { path: '/create-session', json: { use_extmail: true, extmail_auto: 'yes' } })).email,
    ).toMatch(/@gmail\.com$/);
    await error(base, { path: '/create-session', form: { prefix: 'postmaster' } }, 400, 'bad_request');
    await error(base, { path: '/create-session', json: { domain_id: 99 } }, 400, 'bad_request');
    await error(base, { path: '/create-session', query: { prefix: 'a' }, form: { prefix: 'b' } }, 400, 'bad_request');
    await error(
      base,
      { path: '/create-session', raw: { type: 'application/json', bytes: '{"prefix":"a","prefix":"b"}' } },
      400,
      'bad_request',
    );
    await error(base, { path: '/create-session', raw: { type: 'application/json', bytes: '[1]' } }, 400, 'bad_request');
    await error(base, { path: '/create-session', json: { prefix: 'openapi-json', domain_id: 2 } }, 409, 'prefix_taken');
    await error(
      base,
      { path: '/create-session', raw: { type: 'text/plain', bytes: 'prefix=x' } },
      415,
      'unsupported_media_type',
    );
    await error(
      base,
      {
        path: '/create-session',
        raw: { type: 'application/x-www-form-urlencoded', bytes: `prefix=${'a'.repeat(70 * 1024)}` },
      },
      413,
      'too_large',
    );
    // Another client (another loopback address) meets the create-session limit, 30 a minute.
    for (let i = 0; i < 30; i++) await exchange(base, { path: '/create-session', form: {}, from: '127.0.0.2' }, 200);
    const limited = await error(base, { path: '/create-session', form: {}, from: '127.0.0.2' }, 429, 'rate_limited');
    expect(Number(limited.answer.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('reads mail: check-mail with its ETag and 304, read-mail, raw-mail, attachment; the token in a header, the query or a body', async () => {
    const box = await newSession(base);
    await mail(box.email, 'OpenAPI', {
      cc: 'copy@example.org',
      html: '<p>Hello</p>',
      attachments: [{ filename: 'note.txt', content: 'hello attachment' }],
    });
    await listed(base, box.token, 1);
    const first = await exchange(base, { path: '/check-mail', headers: bearer(box.token) }, 200);
    expect(first.json!.messages).toMatchObject([{ id: 1, subject: 'OpenAPI', has_attachments: true }]);
    const same = await exchange(
      base,
      { path: '/check-mail', headers: { ...bearer(box.token), 'if-none-match': first.answer.headers.etag! } },
      304,
    );
    expect(same.answer.headers.etag).toBe(first.answer.headers.etag);
    await ok(base, { path: '/check-mail', query: { token: box.token } });
    const read = await ok(base, { path: '/read-mail', query: { token: box.token, id: 1 } });
    expect(read.message).toMatchObject({
      subject: 'OpenAPI',
      cc: ['copy@example.org'],
      attachments: [{ id: 1, filename: 'note.txt', content_type: 'text/plain' }],
    });
    // A GET's parameters may come in a body too.
    expect(
      (await ok(base, { method: 'GET', path: '/read-mail', json: { token: box.token, id: '1' } })).message.id,
    ).toBe(1);
    const raw = await exchange(base, { path: '/raw-mail', query: { id: 1 }, headers: bearer(box.token) }, 200);
    expect(raw.answer.body.toString('utf8')).toContain('Subject: OpenAPI');
    const attachment = await exchange(
      base,
      { path: '/attachment', query: { token: box.token, id: 1, attachment_id: 1 } },
      200,
    );
    expect(attachment.answer.body.toString('utf8')).toBe('hello attachment');
    await error(base, { path: '/check-mail' }, 401, 'invalid_token');
    await error(base, { path: '/check-mail', headers: bearer(UNKNOWN_TOKEN) }, 401, 'invalid_token');
    await error(
      base,
      { path: '/check-mail', query: { token: UNKNOWN_TOKEN }, headers: bearer(box.token) },
      400,
      'bad_request',
    );
    await error(base, { path: '/read-mail', query: { id: 99 }, headers: bearer(box.token) }, 404, 'not_found');
    await error(base, { path: '/read-mail', query: { id: 'abc' }, headers: bearer(box.token) }, 400, 'bad_request');
    await error(base, { path: '/read-mail', headers: bearer(box.token) }, 400, 'bad_request');
    await error(base, { path: '/raw-mail', query: { id: 99 }, headers: bearer(box.token) }, 404, 'not_found');
    await error(
      base,
      { path: '/attachment', query: { id: 1, attachment_id: 9 }, headers: bearer(box.token) },
      404,
      'not_found',
    );
  });

  it('deletes mail by form, JSON and query', async () => {
    const box = await newSession(base);
    for (const subject of ['one', 'two', 'three']) await mail(box.email, subject);
    await listed(base, box.token, 3);
    expect(await ok(base, { path: '/delete-mail', form: { token: box.token, id: 1 } })).toEqual({
      status: 'success',
      message: 'Message deleted',
    });
    await ok(base, { path: '/delete-mail', json: { id: 2 }, headers: bearer(box.token) });
    await ok(base, { method: 'POST', path: '/delete-mail', query: { token: box.token, id: 3 } });
    await error(base, { path: '/delete-mail', form: { token: box.token, id: 1 } }, 404, 'not_found');
  });

  it('streams news of mail on GET /events, within its bounds', async () => {
    const [one, two, three] = [await newSession(base), await newSession(base), await newSession(base)];
    const stream = await openStream(base, { path: '/events', headers: bearer(one.token) });
    const other = await openStream(base, { path: '/events', query: { token: two.token } });
    try {
      await stream.until((t) => t.startsWith('retry:'), 'the retry line');
      await mail(one.email, 'news');
      const told = await stream.until((t) => t.includes('event: mail\ndata: {}\n\n'), 'a mail event');
      expect(api.check(told.sent, told.answer)).toEqual([]);
      const opened = await other.until((t) => t.startsWith('retry:'), 'the retry line');
      expect(api.check(opened.sent, opened.answer)).toEqual([]);
      await error(base, { path: '/events', headers: bearer(one.token) }, 429, 'too_many_streams');
      await error(base, { path: '/events', headers: bearer(three.token) }, 503, 'too_many_streams');
      await error(base, { path: '/events', headers: bearer(UNKNOWN_TOKEN) }, 401, 'invalid_token');
    } finally {
      stream.close();
      other.close();
    }
    await waitFor(
      async () => (await request(base, { path: '/admin/stats', headers: admin })).json?.event_streams === 0,
      { message: 'the streams closed' },
    );
  });

  it('GET /health, /ready and /metrics', async () => {
    expect(await ok(base, { path: '/health' })).toEqual({ status: 'ok' });
    expect(await ok(base, { path: '/ready' })).toEqual({ status: 'ready' });
    const metrics = await exchange(base, { path: '/metrics' }, 200);
    expect(metrics.answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.answer.body.toString('utf8')).toContain(
      'tempmail_http_requests_total{route="domains",status="200"}',
    );
  });

  it('the admin API, with the admin token and without', async () => {
    const box = await newSession(base);
    await mail(box.email, 'abuse', { from: 'Spammer <bulk@spam.example>' });
    await listed(base, box.token, 1);
    expect(await ok(base, { path: '/admin/stats', headers: admin })).toMatchObject({
      messages: expect.any(Number),
      blocks: 0,
    });
    const [session] = (
      await ok(base, { path: '/admin/sessions', query: { recipient: box.email.toUpperCase() }, headers: admin })
    ).sessions;
    expect(session).toMatchObject({ email: box.email, messages: 1 });
    expect(
      (
        await ok(base, {
          path: '/admin/sessions',
          query: { sender: 'spam.example', client_ip: '127.0.0.0/8', limit: 5 },
          headers: admin,
        })
      ).sessions,
    ).toHaveLength(1);
    expect(
      (await ok(base, { path: '/admin/messages', query: { sender: 'bulk@spam.example', limit: 10 }, headers: admin }))
        .messages,
    ).toMatchObject([{ session_id: session.id, id: 1, envelope_from: 'bulk@spam.example', client_ip: '127.0.0.1' }]);
    await ok(base, {
      path: '/admin/messages',
      query: { recipient: box.email, client_ip: '127.0.0.1' },
      headers: admin,
    });
    expect(
      await ok(base, { path: '/admin/block', form: { kind: 'ip', value: '192.0.2.0/24' }, headers: admin }),
    ).toMatchObject({ added: true });
    expect(
      await ok(base, { path: '/admin/block', json: { kind: 'domain', value: 'Spam.Example' }, headers: admin }),
    ).toMatchObject({ value: 'spam.example' });
    await ok(base, {
      method: 'POST',
      path: '/admin/block',
      query: { kind: 'sender', value: 'x@bad.example' },
      headers: admin,
    });
    expect((await ok(base, { path: '/admin/blocks', headers: admin })).blocks).toHaveLength(3);
    await ok(base, { path: '/admin/unblock', form: { kind: 'ip', value: '192.0.2.0/24' }, headers: admin });
    await ok(base, { path: '/admin/unblock', json: { kind: 'domain', value: 'spam.example' }, headers: admin });
    await ok(base, {
      method: 'POST',
      path: '/admin/unblock',
      query: { kind: 'sender', value: 'x@bad.example' },
      headers: admin,
    });
    await error(
      base,
      { path: '/admin/unblock', form: { kind: 'ip', value: '192.0.2.0/24' }, headers: admin },
      404,
      'not_found',
    );
    await mail(box.email, 'abuse again', { from: 'bulk@spam.example' });
    await listed(base, box.token, 2);
    await ok(base, { path: '/admin/delete-message', form: { session_id: session.id, id: 1 }, headers: admin });
    await ok(base, { path: '/admin/delete-message', json: { session_id: session.id, id: '2' }, headers: admin });
    await error(
      base,
      { path: '/admin/delete-message', json: { session_id: session.id, id: 1 }, headers: admin },
      404,
      'not_found',
    );
    await ok(base, { path: '/admin/delete-session', json: { session_id: session.id }, headers: admin });
    await ok(base, {
      path: '/admin/delete-session',
      form: { session_id: (await newSessionId(base)).id },
      headers: admin,
    });
    await error(
      base,
      { method: 'POST', path: '/admin/delete-session', query: { session_id: session.id }, headers: admin },
      404,
      'not_found',
    );
    const refused = await error(base, { path: '/admin/stats' }, 401, 'invalid_token');
    expect(refused.answer.headers['www-authenticate']).toMatch(/^Bearer /);
    await error(base, { path: '/admin/stats', headers: bearer('not-the-admin-token-at-all') }, 401, 'invalid_token');
    await error(base, { path: '/admin/sessions', headers: admin }, 400, 'bad_request');
    await error(
      base,
      { path: '/admin/messages', query: { sender: 'x.example', limit: 0 }, headers: admin },
      400,
      'bad_request',
    );
    await error(base, { path: '/admin/block', form: { kind: 'mood', value: 'x' }, headers: admin }, 400, 'bad_request');
    await error(base, { path: '/admin/delete-session', form: {}, headers: admin }, 400, 'bad_request');
  });

  /** A new session's admin row (its id), found by its address. */
  async function newSessionId(at: string) {
    const box = await newSession(at);
    return (await ok(at, { path: '/admin/sessions', query: { recipient: box.email }, headers: admin })).sessions[0] as {
      id: string;
    };
  }

  it('answers a path that is no route, another method, a malformed request and a head over 16 KiB', async () => {
    await error(base, { path: '/no-such-route' }, 404, 'not_found', 'NotFound');
    const post = await error(base, { path: '/domains', form: {} }, 405, 'method_not_allowed', 'MethodNotAllowed');
    expect(post.answer.headers.allow).toBe('GET, HEAD');
    expect(
      (await error(base, { path: '/create-session' }, 405, 'method_not_allowed', 'MethodNotAllowed')).answer.headers
        .allow,
    ).toBe('POST');
    await error(base, { path: '/domains', query: { pad: 'x'.repeat(17 * 1024) } }, 431, 'too_large');
    const malformed = await rawExchange(base, 'NOT HTTP AT ALL\r\n\r\n', { method: 'GET', path: '/' });
    expect(api.check(malformed.sent, malformed.answer, 'BadRequest')).toEqual([]);
    expect([malformed.answer.status, malformed.json?.error]).toEqual([400, 'bad_request']);
  });
});

describe('a serve whose sessions live a second, 60 requests a minute, request heads within a second', () => {
  let base: string;
  beforeAll(async () => {
    base = (
      await serve(['--lifetime-seconds', '1', '--http-requests-per-minute', '60'], { httpHeadersTimeoutMs: 1000 })
    ).base;
  });

  it('answers 410 for an expired session on every route that takes a token', async () => {
    const box = await newSession(base);
    await waitFor(
      async () => (await request(base, { path: '/check-mail', headers: bearer(box.token) })).answer.status === 410,
      {
        timeoutMs: 10_000,
        intervalMs: 250,
        message: 'the session to expire',
      },
    );
    const calls: Call[] = [
      { path: '/check-mail' },
      { path: '/read-mail', query: { id: 1 } },
      { path: '/raw-mail', query: { id: 1 } },
      { path: '/attachment', query: { id: 1, attachment_id: 1 } },
      { path: '/delete-mail', form: { id: 1 } },
      { path: '/events' },
    ];
    for (const call of calls) {
      await error(base, { ...call, headers: bearer(box.token) }, 410, 'session_expired');
    }
  });

  it('answers 429 with Retry-After to a client past 60 requests a minute, on any route', async () => {
    for (let i = 0; i < 60; i++) await exchange(base, { path: '/health', from: '127.0.0.3' }, 200);
    const limited = await error(base, { path: '/domains', from: '127.0.0.3' }, 429, 'rate_limited');
    expect(Number(limited.answer.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers 408 to a request whose head does not end in time', async () => {
    const slow = await rawExchange(base, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', {
      method: 'GET',
      path: '/health',
    });
    expect(api.check(slow.sent, slow.answer)).toEqual([]);
    expect([slow.answer.status, slow.json?.error]).toEqual([408, 'timeout']);
  });

  it('has no admin API and no /metrics when they are not turned on', async () => {
    await error(base, { path: '/admin/stats', headers: admin }, 404, 'not_found');
    await error(base, { path: '/metrics' }, 404, 'not_found');
  });
});

describe('a serve whose storage breaks', () => {
  it('answers 503 with Retry-After, and /health and /ready say unavailable', async () => {
    const c = await serve([]);
    const box = await newSession(c.base);
    await sendMail(c.proc, { to: box.email, subject: 'kept', text: 'x' });
    await listed(c.base, box.token, 1);
    // A real failure (as root too): the messages directory becomes a plain file.
    await rm(join(c.dir, 'data', 'messages'), { recursive: true });
    await writeFile(join(c.dir, 'data', 'messages'), 'not a directory');
    const failed = await error(
      c.base,
      { path: '/read-mail', query: { id: 1 }, headers: bearer(box.token) },
      503,
      'storage_unavailable',
    );
    expect(Number(failed.answer.headers['retry-after'])).toBeGreaterThan(0);
    expect((await exchange(c.base, { path: '/health' }, 503)).json).toEqual({ status: 'unavailable' });
    expect((await exchange(c.base, { path: '/ready' }, 503)).json).toEqual({ status: 'unavailable' });
  });
});

describe('the description', () => {
  it('was exercised whole: every answer, parameter, body type and token scheme (500 aside)', () => {
    expect(api.unexercised().filter((what) => what !== 'component Internal')).toEqual([]);
  });
});
