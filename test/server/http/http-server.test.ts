/**
 * The HTTP front end over real loopback HTTP against the real service: every route, every encoding,
 * every error shape, and the inputs that must never crash it or leak a stack.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type CallResult } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';

const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function expectError(res: CallResult, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.json).toMatchObject({ status: 'error', error: code });
  expect(typeof res.json?.message).toBe('string');
  expect(res.bytes.toString()).not.toMatch(/\bat .*\.(ts|js):\d+/); // never a stack
}

let svc: TestService;
let now = Date.UTC(2030, 0, 15, 12, 0, 0);

beforeAll(async () => {
  svc = await startTestService(
    {
      createPerMinute: 10_000,
      extmailAccounts: [
        { email: 'john.doe@gmail.com', dotInsensitive: true },
        { email: 'box@example.net', dotInsensitive: false },
      ],
    },
    { clock: () => now },
  );
});
afterAll(() => svc?.close());

async function newSession(form: Record<string, string | number> = {}) {
  const res = await call(svc.baseUrl, '/create-session', { form });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { email: string; token: string; expires_at: string };
}

describe('GET /domains', () => {
  it('lists domains and external-mail accounts as JSON', async () => {
    const res = await call(svc.baseUrl, '/domains');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.json).toEqual({
      status: 'success',
      domains: [
        { id: expect.any(Number), domain: 'tempmail.test' },
        { id: expect.any(Number), domain: 'inbox.test' },
      ],
      extmail_accounts: [
        { id: expect.any(Number), email: 'john.doe@gmail.com' },
        { id: expect.any(Number), email: 'box@example.net' },
      ],
    });
  });

  it('answers HEAD without a body and tolerates a trailing slash', async () => {
    const head = await call(svc.baseUrl, '/domains', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect((await call(svc.baseUrl, '/domains/')).status).toBe(200);
  });
});

describe('POST /create-session', () => {
  it('creates a random address with a UTC expires_at, from an empty form', async () => {
    const s = await newSession();
    expect(s.email).toMatch(/^[a-z0-9._-]+@(tempmail|inbox)\.test$/);
    expect(s.token.length).toBeGreaterThanOrEqual(22);
    expect(s.expires_at).toMatch(WIRE_TIME);
    expect(s.expires_at).toBe(new Date(now + 3600_000).toISOString().slice(0, 19).replace('T', ' '));
  });

  it('takes its parameters from a form, a JSON body and the query string alike', async () => {
    const domains = (await call(svc.baseUrl, '/domains')).json!.domains as { id: number; domain: string }[];
    const inbox = domains.find((d) => d.domain === 'inbox.test')!;
    const viaForm = await call(svc.baseUrl, '/create-session', { form: { prefix: 'form-user', domain_id: inbox.id } });
    const viaJson = await call(svc.baseUrl, '/create-session', { json: { prefix: 'json-user', domain_id: inbox.id } });
    const viaQuery = await call(svc.baseUrl, '/create-session', {
      method: 'POST',
      query: { prefix: 'query-user', domain_id: inbox.id },
    });
    expect(viaForm.json?.email).toBe('form-user@inbox.test');
    expect(viaJson.json?.email).toBe('json-user@inbox.test');
    expect(viaQuery.json?.email).toBe('query-user@inbox.test');
  });

  it('answers 409 for a prefix in use and 400 for a bad or reserved one', async () => {
    await newSession({ prefix: 'taken-name' });
    expectError(await call(svc.baseUrl, '/create-session', { form: { prefix: 'taken-name' } }), 409, 'prefix_taken');
    expectError(await call(svc.baseUrl, '/create-session', { form: { prefix: 'bad name!' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { form: { prefix: '.dot' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { form: { prefix: 'postmaster' } }), 400, 'bad_request');
    // Other spellings of a role name are that name.
    for (const prefix of ['mailer_daemon', 'post.master', 'ＲＯＯＴ', 'mar\u212Aeting']) {
      const answer = await call(svc.baseUrl, '/create-session', { form: { prefix } });
      expectError(answer, 400, 'bad_request');
      expect(answer.json?.message, prefix).toMatch(/is reserved$/);
    }
    // A compatibility form of a free name is kept as its ASCII form.
    expect((await newSession({ prefix: 'ｗｉｄｅ-ｏｔｔｅｒ' })).email).toBe('wide-otter@tempmail.test');
  });

  it('validates domain_id and the flags', async () => {
    expectError(await call(svc.baseUrl, '/create-session', { form: { domain_id: 'abc' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { form: { domain_id: '1.5' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { json: { domain_id: -1 } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { form: { domain_id: 9999 } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { form: { use_extmail: 'maybe' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { json: { prefix: { a: 1 } } }), 400, 'bad_request');
  });

  it('gives external-mail aliases for use_extmail with "1", 1 and true, and honours extmail_id', async () => {
    const auto = await call(svc.baseUrl, '/create-session', { form: { use_extmail: '1', extmail_auto: '1' } });
    expect(auto.json?.email).toMatch(/\+.+@(gmail\.com|example\.net)$/);
    const alone = await call(svc.baseUrl, '/create-session', { json: { use_extmail: true } });
    expect(alone.json?.email).toMatch(/\+.+@(gmail\.com|example\.net)$/);
    const accounts = (await call(svc.baseUrl, '/domains')).json!.extmail_accounts as { id: number; email: string }[];
    const box = accounts.find((a) => a.email === 'box@example.net')!;
    const chosen = await call(svc.baseUrl, '/create-session', { json: { use_extmail: 1, extmail_id: box.id } });
    expect(chosen.json?.email).toMatch(/^box\+.+@example\.net$/);
    expectError(
      await call(svc.baseUrl, '/create-session', { form: { use_extmail: 1, extmail_id: 777 } }),
      400,
      'bad_request',
    );
  });
});

describe('check-mail, read-mail, delete-mail', () => {
  it('lists newest first, reads the full message, deletes it', async () => {
    const s = await newSession();
    await sendMail(svc, { from: 'Ann <ann@example.org>', to: s.email, subject: 'first', text: 'one' });
    now += 1000;
    await sendMail(svc, {
      from: 'Bob <bob@example.org>',
      to: s.email,
      cc: 'other@example.org',
      subject: 'second',
      text: 'two',
      html: '<p>two</p>',
    });
    const list = await call(svc.baseUrl, '/check-mail', { query: { token: s.token } });
    expect(list.status).toBe(200);
    const messages = list.json!.messages as Record<string, unknown>[];
    expect(messages.map((m) => m.subject)).toEqual(['second', 'first']);
    expect(messages[0]).toEqual({
      id: expect.any(Number),
      sender_name: 'Bob',
      sender_email: 'bob@example.org',
      subject: 'second',
      received_at: expect.stringMatching(WIRE_TIME),
      has_attachments: false,
    });

    const id = messages[0]!.id as number;
    const read = await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id } });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      status: 'success',
      message: {
        id,
        subject: 'second',
        sender_name: 'Bob',
        sender_email: 'bob@example.org',
        received_at: expect.stringMatching(WIRE_TIME),
        to: [s.email],
        cc: ['other@example.org'],
        body_text: expect.stringContaining('two'),
        body_html: expect.stringContaining('<p>two</p>'),
        headers: expect.any(Object),
        attachments: [],
      },
    });
    // The plain one has no HTML: null, not a made-up rendering of the text.
    const plain = await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: messages[1]!.id as number } });
    expect(plain.json?.message.body_html).toBeNull();

    const del = await call(svc.baseUrl, '/delete-mail', { form: { token: s.token, id } });
    expect(del.json).toEqual({ status: 'success', message: 'Message deleted' });
    expectError(await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id } }), 404, 'not_found');
    expectError(await call(svc.baseUrl, '/delete-mail', { json: { token: s.token, id } }), 404, 'not_found');
    const after = await call(svc.baseUrl, '/check-mail', { query: { token: s.token } });
    expect((after.json!.messages as unknown[]).length).toBe(1);
  });

  it('accepts the token in a JSON body, a form body and the query string of a POST', async () => {
    const s = await newSession();
    for (const subject of ['a', 'b', 'c']) await sendMail(svc, { to: s.email, subject, text: subject });
    const ids = (
      (await call(svc.baseUrl, '/check-mail', { query: { token: s.token } })).json!.messages as { id: number }[]
    ).map((m) => m.id);
    expect((await call(svc.baseUrl, '/delete-mail', { json: { token: s.token, id: String(ids[0]) } })).status).toBe(
      200,
    );
    expect((await call(svc.baseUrl, '/delete-mail', { form: { token: s.token, id: ids[1]! } })).status).toBe(200);
    expect(
      (await call(svc.baseUrl, '/delete-mail', { method: 'POST', query: { token: s.token, id: ids[2]! } })).status,
    ).toBe(200);
    // The optional t and force of the public service are ignored.
    const list = await call(svc.baseUrl, '/check-mail', { query: { token: s.token, t: 123, force: 1 } });
    expect(list.json?.messages).toEqual([]);
  });

  it('answers 401 for a missing or unknown token, 400 for a bad id, 410 once expired', async () => {
    expectError(await call(svc.baseUrl, '/check-mail'), 401, 'invalid_token');
    expectError(await call(svc.baseUrl, '/check-mail', { query: { token: 'nope' } }), 401, 'invalid_token');
    expectError(await call(svc.baseUrl, '/check-mail', { query: { token: 'x'.repeat(5000) } }), 401, 'invalid_token');
    const s = await newSession();
    expectError(await call(svc.baseUrl, '/read-mail', { query: { token: s.token } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: 'x' } }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: 424242 } }), 404, 'not_found');
    const expiring = await newSession();
    now += 3600_000 + 1000;
    expectError(await call(svc.baseUrl, '/check-mail', { query: { token: expiring.token } }), 410, 'session_expired');
  });
});

describe('errors of the HTTP layer', () => {
  it('answers unknown routes with 404 and wrong methods with 405, in JSON', async () => {
    expectError(await call(svc.baseUrl, '/nope'), 404, 'not_found');
    expectError(await call(svc.baseUrl, '/'), 404, 'not_found');
    const wrong = await call(svc.baseUrl, '/check-mail', { method: 'POST', form: { token: 'x' } });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expectError(await call(svc.baseUrl, '/create-session'), 405, 'method_not_allowed');
    expectError(await call(svc.baseUrl, '/delete-mail', { method: 'PUT' }), 405, 'method_not_allowed');
  });

  it('answers bad bodies with 400, unknown media types with 415 and big bodies with 413', async () => {
    const json = { 'content-type': 'application/json' };
    expectError(await call(svc.baseUrl, '/create-session', { body: '{"prefix":', headers: json }), 400, 'bad_request');
    expectError(await call(svc.baseUrl, '/create-session', { body: '[1,2]', headers: json }), 400, 'bad_request');
    expectError(
      await call(svc.baseUrl, '/create-session', {
        body: Buffer.from([0x70, 0x3d, 0xff, 0xfe]),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'bad_request',
    );
    expectError(
      await call(svc.baseUrl, '/create-session', { body: 'prefix=x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await call(svc.baseUrl, '/create-session', {
        method: 'POST',
        query: { prefix: 'a-one' },
        form: { prefix: 'a-two' },
      }),
      400,
      'bad_request',
    );
    expectError(
      await call(svc.baseUrl, '/create-session', { form: { prefix: 'x'.repeat(100 * 1024) } }),
      413,
      'too_large',
    );
    // Still alive and well after all that.
    expect((await call(svc.baseUrl, '/domains')).status).toBe(200);
  });

  it('answers a huge declared body at once, and malformed HTTP with a JSON 400', async () => {
    const head = `POST /create-session HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${1 << 30}\r\n\r\n`;
    expect(await rawExchange(svc.baseUrl, head)).toMatch(/^HTTP\/1\.1 413[\s\S]*"error":"too_large"/);
    const garbage = await rawExchange(svc.baseUrl, 'BLAH\x01\x02 / HTTP/9\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400[\s\S]*"status":"error"/);
  });

  it('never answers 500 or crashes on odd parameter values', async () => {
    const s = await newSession();
    const odd = [
      '',
      ' ',
      '-1',
      '1e3',
      '0x10',
      '9'.repeat(40),
      'null',
      '\u0000',
      '\u202e',
      '😀'.repeat(300),
      '%',
      '[]',
      '{}',
    ];
    for (const value of odd) {
      for (const [path, method] of [
        ['/create-session', 'POST'],
        ['/read-mail', 'GET'],
        ['/delete-mail', 'POST'],
        ['/attachment', 'GET'],
      ] as const) {
        for (const key of ['prefix', 'domain_id', 'use_extmail', 'extmail_auto', 'extmail_id', 'id', 'attachment_id']) {
          const query = { token: s.token, [key]: value };
          const res = await call(svc.baseUrl, path, { method, query });
          expect(res.status, `${path} ${key}=${JSON.stringify(value)}`).toBeLessThan(500);
          expect(res.json?.status).toBeDefined();
        }
      }
    }
    const jsonValues: unknown[] = [[], {}, null, true, false, 1.5, -3, 1e300, 'x', '', [1], { token: s.token }];
    for (const value of jsonValues) {
      for (const key of ['token', 'prefix', 'domain_id', 'use_extmail', 'extmail_auto', 'extmail_id', 'id']) {
        for (const path of ['/create-session', '/delete-mail']) {
          const res = await call(svc.baseUrl, path, { json: { token: s.token, [key]: value } });
          expect(res.status, `${path} ${key}=${JSON.stringify(value)}`).toBeLessThan(500);
          expect(res.json?.status).toBeDefined();
        }
      }
    }
  }, 60_000);
});

describe('rate limit, health, logs', () => {
  it('answers 429 with Retry-After past the per-client limit', async () => {
    const limited = await startTestService({ createPerMinute: 3 });
    try {
      for (let i = 0; i < 3; i++)
        expect((await call(limited.baseUrl, '/create-session', { form: {} })).status).toBe(200);
      const res = await call(limited.baseUrl, '/create-session', { form: {} });
      expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it("counts a trusted load balancer's clients apart by X-Forwarded-For, and believes no one else's header", async () => {
    const behind = await startTestService({ createPerMinute: 2, trustedProxies: ['127.0.0.1'] });
    const direct = await startTestService({ createPerMinute: 2 });
    try {
      const create = (target: string, forwarded: string) =>
        call(target, '/create-session', { form: {}, headers: { 'x-forwarded-for': forwarded } });
      // Through the proxy: two clients, two each; a left-hand entry the client wrote is not believed.
      for (const client of ['203.0.113.5', '198.51.100.7']) {
        for (let i = 0; i < 2; i++) expect((await create(behind.baseUrl, `10.9.9.${i}, ${client}`)).status).toBe(200);
        expectError(await create(behind.baseUrl, `10.9.9.9, ${client}`), 429, 'rate_limited');
      }
      // Not from a trusted proxy: the header changes nothing, the peer is the client.
      for (let i = 0; i < 2; i++) expect((await create(direct.baseUrl, `192.0.2.${i}`)).status).toBe(200);
      expectError(await create(direct.baseUrl, '192.0.2.99'), 429, 'rate_limited');
    } finally {
      await behind.close();
      await direct.close();
    }
  });

  it('reports healthy storage in one word, with no count; /ready says ready', async () => {
    const res = await call(svc.baseUrl, '/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
    const ready = await call(svc.baseUrl, '/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready' });
  });

  it('keeps every token out of the log', async () => {
    const s = await newSession();
    await call(svc.baseUrl, '/check-mail', { query: { token: s.token } });
    await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: 'bad' } });
    await call(svc.baseUrl, '/delete-mail', { method: 'GET', query: { token: s.token } });
    expect(svc.logs.length).toBeGreaterThan(0);
    expect(svc.logs.join('\n')).not.toContain(s.token);
  });
});

/** Writes raw bytes to the HTTP port and collects everything until the server closes the connection. */
function rawExchange(baseUrl: string, request: string): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}
