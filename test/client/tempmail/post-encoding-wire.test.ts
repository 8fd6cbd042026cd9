/**
 * postEncoding as it goes over the wire. The reference service reads form, JSON and query parameters
 * alike, so conformance alone would not notice a client that always sent a form: here a small recording
 * proxy (real HTTP, loopback) sits in front of the real reference service and keeps every request the
 * client made, and the test reads the content type, body, query string and Authorization header it
 * forwarded. The reference service takes the token in an Authorization header (Tempmail-Capabilities:
 * bearer); with that header taken out of its answers by the proxy it is a service of the interface
 * alone, which gets the token as a parameter, in the encoding asked for.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { PostEncoding } from '../../../src/client/client-types';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import type { Recorded } from '../fixture-server';

interface Proxy {
  url: string;
  requests: (Recorded & { authorization?: string })[];
  close(): Promise<void>;
}

/**
 * A pass-through HTTP proxy to `target` that records each request (method, path, query, body, type,
 * Authorization); with `hideCapabilities`, it takes the Tempmail-Capabilities header out of the answers.
 */
async function startRecordingProxy(target: string, hideCapabilities: boolean): Promise<Proxy> {
  const upstream = new URL(target);
  const requests: Proxy['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://proxy.invalid');
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: body.toString('utf8'),
        contentType: String(req.headers['content-type'] ?? ''),
        authorization: req.headers.authorization,
      });
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          if (hideCapabilities) delete answer.headers['tempmail-capabilities'];
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let svc: TestService;
/** In front of a service of the interface alone (the capabilities header taken out). */
let proxy: Proxy;
/** In front of the reference service as it is. */
let bearerProxy: Proxy;
beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  proxy = await startRecordingProxy(svc.baseUrl, true);
  bearerProxy = await startRecordingProxy(svc.baseUrl, false);
});
afterAll(async () => {
  await proxy?.close();
  await bearerProxy?.close();
  await svc?.close();
});

/** The last request `through` forwarded to `path`. */
function lastTo(path: string, through = proxy): Proxy['requests'][number] {
  const found = through.requests.filter((r) => r.path === path).at(-1);
  if (!found) throw new Error(`no request to ${path} went through the proxy`);
  return found;
}

/** Asserts that `rec` carried exactly `params` the way `encoding` says, and nowhere else. */
function expectOnWire(rec: Recorded, encoding: PostEncoding, params: Record<string, string | number>): void {
  expect(rec.method).toBe('POST');
  const asText = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  if (encoding === 'form') {
    expect(rec.contentType).toMatch(/^application\/x-www-form-urlencoded\b/);
    expect(Object.fromEntries(new URLSearchParams(rec.body))).toEqual(asText);
    expect([...rec.query.keys()]).toEqual([]);
  } else if (encoding === 'json') {
    expect(rec.contentType).toMatch(/^application\/json\b/);
    // JSON keeps numbers as numbers.
    expect(JSON.parse(rec.body)).toEqual(params);
    expect([...rec.query.keys()]).toEqual([]);
  } else {
    expect(rec.body).toBe('');
    expect(rec.contentType).not.toMatch(/form-urlencoded|json/);
    expect(Object.fromEntries(rec.query)).toEqual(asText);
  }
}

describe('POST parameters on the wire, through a recording proxy to the reference service', () => {
  for (const encoding of [undefined, 'form', 'json', 'query'] as (PostEncoding | undefined)[]) {
    const name = encoding ?? 'default';
    const wire: PostEncoding = encoding ?? 'form';
    it(`postEncoding ${encoding ?? 'unset (form, the default)'}: create-session and delete-mail`, async () => {
      const client = createApi({ baseUrl: proxy.url, ...(encoding ? { postEncoding: encoding } : {}) });

      const session = await client.createSession({ prefix: `wire-${name}`, domainId: 2 });
      expect(session.email).toBe(`wire-${name}@inbox.test`);
      expectOnWire(lastTo('/create-session'), wire, { prefix: `wire-${name}`, domain_id: 2 });
      // The session is real: the service knows its token.
      await expect(client.checkMail(session.token)).resolves.toEqual([]);

      await sendMail(svc, { to: session.email, subject: `bye ${name}`, text: 'x' });
      const message = await waitFor(
        async () => (await client.checkMail(session.token)).find((m) => m.subject === `bye ${name}`),
        {
          timeoutMs: 10_000,
          message: 'the message in the inbox',
        },
      );
      await client.deleteMail(session.token, message.id);
      expectOnWire(lastTo('/delete-mail'), wire, { token: session.token, id: Number(message.id) });
      expect(await client.checkMail(session.token)).toEqual([]);
    });
  }

  it('GETs carry their parameters in the query string whatever the POST encoding', async () => {
    const client = createApi({ baseUrl: proxy.url, postEncoding: 'json' });
    const session = await client.createSession();
    await client.checkMail(session.token);
    const get = lastTo('/check-mail');
    expect(get.method).toBe('GET');
    expect(get.body).toBe('');
    expect(get.query.get('token')).toBe(session.token);
  });

  it('to a service that takes it in a header, the token is in the Authorization header of every call, in no URL and no body', async () => {
    for (const postEncoding of ['form', 'json', 'query'] as PostEncoding[]) {
      const client = createApi({ baseUrl: bearerProxy.url, postEncoding });
      const session = await client.createSession({ prefix: `bearer-${postEncoding}` });
      await sendMail(svc, {
        to: session.email,
        subject: 'in the header',
        text: 'x',
        attachments: [{ filename: 'a.txt', content: 'A' }],
      });
      const [message] = await waitFor(
        async () => {
          const list = await client.checkMail(session.token);
          return list.length === 1 ? list : undefined;
        },
        { message: 'the message in the inbox' },
      );
      const read = await client.readMail(session.token, message!.id);
      await client.downloadAttachment(session.token, message!.id, read.attachments[0]!.id);
      await client.readSource(session.token, message!.id);
      await client.deleteMail(session.token, message!.id);
      expectOnWire(lastTo('/delete-mail', bearerProxy), postEncoding, { id: Number(message!.id) });
      for (const path of ['/check-mail', '/read-mail', '/attachment', '/raw-mail', '/delete-mail']) {
        const rec = lastTo(path, bearerProxy);
        expect(rec.authorization, path).toBe(`Bearer ${session.token}`);
        expect(rec.query.has('token'), path).toBe(false);
        expect(rec.body, path).not.toContain(session.token);
      }
    }
    // Where the first answer (create-session) said nothing of it, no token went in a header.
    expect(proxy.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
  });
});
