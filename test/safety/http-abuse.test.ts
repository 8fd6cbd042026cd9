/**
 * The reference service's HTTP side under abuse, beyond test/server/http/http-server.test.ts (issue 5): the token
 * and id fuzzed on every token route, repeated parameters, invalid percent-encoding, a URL past the
 * header limit, odd methods and paths, content types, deeply nested and prototype-polluting JSON,
 * lying Content-Length, an endless chunked body, 200 requests at once. Always a JSON error with a
 * fitting 4xx status, never a 500 or a stack, and the service answers /health afterwards.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type CallResult } from '../harness/http';
import { startTestService, type TestService } from '../harness/service';

let svc: TestService;
let token: string;
beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 100_000 });
  token = (await call(svc.baseUrl, '/create-session', { form: {} })).json!.token as string;
});
afterAll(() => svc?.close());

/** A JSON error with a 4xx status and no stack. */
function expectJsonError(res: CallResult, what: string, statuses = [400, 401, 404, 405, 413, 414, 415, 431]): void {
  expect(statuses, `${what}: status ${res.status} ${res.bytes.toString().slice(0, 200)}`).toContain(res.status);
  expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
  expect(res.json?.status, what).toBe('error');
  expect(typeof res.json?.error, what).toBe('string');
  expect(res.bytes.toString(), what).not.toMatch(/\bat .*\.(?:ts|js):\d+|Error:/);
}

/** Writes raw bytes and reads until the server closes or `ms` pass; returns the text seen. */
function raw(request: string | Buffer, ms = 5000, keepWriting?: (s: net.Socket) => void): Promise<string> {
  const url = new URL(svc.baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString('latin1'));
    socket.on('connect', () => {
      socket.write(request);
      keepWriting?.(socket);
    });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', done);
    socket.on('close', done);
    socket.setTimeout(ms, () => socket.destroy());
  });
}

const TOKEN_ROUTES = [
  ['/check-mail', 'GET'],
  ['/read-mail', 'GET'],
  ['/delete-mail', 'POST'],
  ['/raw-mail', 'GET'],
  ['/attachment', 'GET'],
] as const;

describe('HTTP under abuse', () => {
  it('fuzzes token and id on every token route: 400/401/404 JSON, never 500', async () => {
    const tokens = [
      '',
      ' ',
      'x',
      'x'.repeat(600),
      '😀'.repeat(50),
      '\u0000',
      '\u202e',
      '%',
      '../../etc/passwd',
      `${'a'.repeat(43)}\n`,
      'null',
      '[]',
    ];
    const ids = ['', '0', '-1', '1.5', '1e3', '9'.repeat(30), 'abc', '0x1'];
    let n = 0;
    for (const [path, method] of TOKEN_ROUTES) {
      for (const t of tokens) {
        expectJsonError(
          await call(svc.baseUrl, path, { method, query: { token: t, id: 1, attachment_id: 1 } }),
          `${path} token=${JSON.stringify(t)}`,
        );
        n++;
      }
      for (const id of ids) {
        const res = await call(svc.baseUrl, path, { method, query: { token, id, attachment_id: id } });
        if (path === '/check-mail') expect(res.status).toBe(200);
        else expectJsonError(res, `${path} id=${id}`);
        n++;
      }
    }
    expect(n).toBe(TOKEN_ROUTES.length * (tokens.length + ids.length));
  });

  it('repeated parameters and invalid percent-encoding are refused in JSON', async () => {
    for (const query of [
      `token=${token}&token=${token}`,
      `token=${token}&id=1&id=2`,
      'token=%zz',
      `token=${token}&id=%ff`,
      'token=%',
      `token=${token}%00`,
    ]) {
      expectJsonError(await call(svc.baseUrl, `/read-mail?${query}`), query);
    }
    expectJsonError(
      await call(svc.baseUrl, '/delete-mail', {
        body: `token=${token}&id=1&id=2`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      'repeated id in a form',
    );
    expectJsonError(
      await call(svc.baseUrl, '/delete-mail', { json: { token, id: 1 }, query: { id: 2 } }),
      'id in body and query',
    );
  });

  it('odd methods, paths and a URL past the header limit get JSON errors', async () => {
    for (const method of ['OPTIONS', 'PATCH', 'DELETE', 'PUT', 'PROPFIND']) {
      expectJsonError(await call(svc.baseUrl, '/check-mail', { method, query: { token } }), method);
    }
    // fetch refuses to send TRACE; a raw request does.
    expect(await raw(`TRACE /check-mail?token=${token} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 405[\s\S]*"status":"error"/,
    );
    for (const path of [
      '//check-mail',
      '/CHECK-MAIL',
      '/check-mail%00',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/check-mail;x=1',
      '/read-mail/1',
      '/.env',
    ]) {
      const res = await call(svc.baseUrl, `${path}?token=${token}`);
      if (res.status === 200) expect(res.json?.status).toBe('success');
      else expectJsonError(res, path);
    }
    const long = await raw(`GET /check-mail?token=${'x'.repeat(40_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(long).toMatch(/^HTTP\/1\.1 (?:414|431|400) [\s\S]*"status":"error"/);
  });

  it('content types: multipart, XML, charsets, no type, JSON with prototype keys or 50,000 levels deep', async () => {
    const bodies: [string, string | undefined, number[]][] = [
      [
        '--b\r\nContent-Disposition: form-data; name="prefix"\r\n\r\nx\r\n--b--\r\n',
        'multipart/form-data; boundary=b',
        [415],
      ],
      ['<prefix>x</prefix>', 'text/xml', [415]],
      ['prefix=ct-one', 'application/x-www-form-urlencoded; charset=utf-16', [200, 400, 415]],
      ['{"prefix":"ct-two"}', 'application/json; charset=latin1', [200, 400, 415]],
      ['prefix=ct-three', undefined, [200, 400, 415]],
      ['['.repeat(50_000), 'application/json', [400, 413]],
      [`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, 'application/json', [400, 413]],
    ];
    for (const [body, type, statuses] of bodies) {
      const res = await call(svc.baseUrl, '/create-session', {
        method: 'POST',
        body,
        headers: type ? { 'content-type': type } : {},
      });
      if (res.status === 200) expect(statuses).toContain(200);
      else expectJsonError(res, `${type}: ${body.slice(0, 30)}`, statuses);
    }
    // Prototype keys neither pollute nor crash.
    for (const json of [
      '{"__proto__":{"prefix":"admin","polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '{"prefix":"a1","prefix":"a2"}',
    ]) {
      const res = await call(svc.baseUrl, '/create-session', {
        body: json,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, json).toBeLessThan(500);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    const form = await call(svc.baseUrl, '/create-session', {
      body: '__proto__[polluted]=1&constructor[prototype][polluted]=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a lying Content-Length is never a 500; an endless chunked body is cut off with 413 after 16 MiB', async () => {
    const short = await raw(
      `POST /create-session HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\nconnection: close\r\n\r\n{"pre`,
      2000,
    );
    // Either the request timeout answers or the socket is simply held until we give up: never a 500.
    expect(short).not.toMatch(/^HTTP\/1\.1 5/);
    let writes = 0;
    // The service drains up to 16 MiB (so a client that sent too much can read its 413), then answers.
    const MAX_WRITES = 4096; // 64 MiB on offer
    const chunked = await raw(
      'POST /create-session HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
      20_000,
      (s) => {
        const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
        const pump = () => {
          while (!s.destroyed && writes < MAX_WRITES && s.write(chunk)) writes++;
          if (!s.destroyed && writes < MAX_WRITES) s.once('drain', pump);
        };
        s.on('data', () => s.destroy()); // the answer came: stop sending
        pump();
      },
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413[\s\S]*"error":"too_large"/);
    expect(writes).toBeLessThan(MAX_WRITES);
  });

  it('answers 200 requests at once, and is healthy after all of the above', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, () => call(svc.baseUrl, '/check-mail', { query: { token } })),
    );
    expect(results.every((r) => r.status === 200 && r.json?.status === 'success')).toBe(true);
    const health = await call(svc.baseUrl, '/health');
    expect(health.status).toBe(200);
    expect(svc.logs.join('\n')).not.toContain(token);
  });
});
