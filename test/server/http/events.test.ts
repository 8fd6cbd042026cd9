/**
 * GET /events over real HTTP, with mail sent over real SMTP: the stream tells a session of its mail (and
 * of no one else's), takes the token as a parameter or as a Bearer header, keeps the line alive, is
 * bounded per session and in all, and ends when the session expires or the service closes.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import type { ServerConfig } from '../../../src/server/config/server-config';

const cleanup = cleanupAfterEach();

async function service(overrides: Partial<ServerConfig> = {}): Promise<TestService> {
  return cleanup.defer(await startTestService(overrides), (s) => s.close());
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('GET /events', () => {
  it('streams a "mail" event for each message stored for the session, and none for others', async () => {
    const svc = await service();
    const [box, other] = [await newSession(svc.baseUrl), await newSession(svc.baseUrl)];
    const stream = cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(box.token) }), (s) => s.close());
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-store');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    await waitFor(() => stream.text().startsWith('retry: 2000\n'), { message: 'the retry line' });
    await sendMail(svc, { to: other.email, subject: 'not yours' });
    await sendMail(svc, { to: box.email, subject: 'yours' });
    await stream.waitForEvent('mail');
    await sendMail(svc, { to: [box.email, other.email], subject: 'both' });
    await stream.waitForEvent('mail', 2);
    // Two messages for the box, two events: the one for the other session said nothing here.
    expect(stream.events()).toEqual(['mail', 'mail']);
    expect(stream.text()).toContain('event: mail\ndata: {}\n\n');
    expect(svc.logs.join('\n')).not.toContain(box.token);
  });

  it('takes the token as a parameter too, and answers a missing, unknown or expired one in JSON', async () => {
    const svc = await service({ lifetimeSeconds: 1 });
    const box = await newSession(svc.baseUrl);
    const byQuery = cleanup.defer(await openEvents(svc.baseUrl, { query: { token: box.token } }), (s) => s.close());
    expect(byQuery.status).toBe(200);
    for (const [options, status, code] of [
      [{}, 401, 'invalid_token'],
      [{ headers: bearer('x'.repeat(43)) }, 401, 'invalid_token'],
    ] as const) {
      const res = await call(svc.baseUrl, '/events', options);
      expect(res.status).toBe(status);
      expect(res.json).toMatchObject({ status: 'error', error: code });
    }
    // The session expires under the open stream: it is told so, and the stream ends cleanly.
    await byQuery.waitForEvent('expired', 1, 5000);
    expect(await byQuery.ended).toBe('end');
    const late = await call(svc.baseUrl, '/events', { headers: bearer(box.token) });
    expect(late.status).toBe(410);
    expect(late.json).toMatchObject({ error: 'session_expired' });
  });

  it('keeps the line alive with a comment every heartbeat', async () => {
    const svc = await service({ eventsHeartbeatMs: 1000 });
    const box = await newSession(svc.baseUrl);
    const stream = cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(box.token) }), (s) => s.close());
    await waitFor(() => stream.text().split(': keep-alive\n\n').length - 1 >= 2, {
      timeoutMs: 6000,
      message: 'two keep-alive comments',
    });
    expect(stream.events()).toEqual([]);
  });

  it('holds at most eventStreamsPerSession streams of one session (429) and eventStreamsTotal in all (503)', async () => {
    // One client opens them all here: its own bound (eventStreamsPerClient, below) is off.
    const svc = await service({ eventStreamsPerSession: 2, eventStreamsTotal: 3, eventStreamsPerClient: 0 });
    const [a, b] = [await newSession(svc.baseUrl), await newSession(svc.baseUrl)];
    const first = await openEvents(svc.baseUrl, { headers: bearer(a.token) });
    cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(a.token) }), (s) => s.close());
    const third = await call(svc.baseUrl, '/events', { headers: bearer(a.token) });
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ status: 'error', error: 'too_many_streams' });
    expect(third.headers.get('retry-after')).toBe('60');
    // Another session still gets one, up to the total.
    cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(b.token) }), (s) => s.close());
    const overTotal = await call(svc.baseUrl, '/events', { headers: bearer(b.token) });
    expect(overTotal.status).toBe(503);
    expect(overTotal.json).toMatchObject({ error: 'too_many_streams' });
    // A stream the client closes frees its place.
    first.close();
    const again = await waitFor(
      async () => {
        const s = await openEvents(svc.baseUrl, { headers: bearer(a.token) });
        if (s.status === 200) return s;
        s.close();
        return undefined;
      },
      { message: 'a place freed by the closed stream' },
    );
    cleanup.defer(again, (s) => s.close());
    await sendMail(svc, { to: a.email, subject: 'still told' });
    await again.waitForEvent('mail');
  });

  it('holds at most eventStreamsPerClient streams of one client, whatever its sessions (429), and not of another', async () => {
    // Without it one client held every stream there was (30 sessions a minute, 4 streams each), and every
    // other client met 503.
    const svc = await service({ eventStreamsPerClient: 2, eventStreamsTotal: 10 });
    const boxes = [await newSession(svc.baseUrl), await newSession(svc.baseUrl), await newSession(svc.baseUrl)];
    for (const box of boxes.slice(0, 2)) {
      const s = cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(box.token), from: '127.0.0.1' }), (x) =>
        x.close(),
      );
      expect(s.status).toBe(200);
    }
    const third = cleanup.defer(
      await openEvents(svc.baseUrl, { headers: bearer(boxes[2]!.token), from: '127.0.0.1' }),
      (x) => x.close(),
    );
    expect(third.status).toBe(429);
    expect(JSON.parse(third.text())).toMatchObject({ status: 'error', error: 'too_many_streams' });
    expect(third.headers['retry-after']).toBe('60');
    // Another client (another loopback address) is not held to the first one's count.
    const other = cleanup.defer(
      await openEvents(svc.baseUrl, { headers: bearer(boxes[2]!.token), from: '127.0.0.2' }),
      (x) => x.close(),
    );
    expect(other.status).toBe(200);
    await sendMail(svc, { to: boxes[2]!.email, subject: 'told' });
    await other.waitForEvent('mail');
  });

  it('counts the client a trusted proxy names, not the proxy; by default a tenth of the total', async () => {
    const svc = await service({ trustProxy: true, eventStreamsTotal: 20 });
    const box = await newSession(svc.baseUrl);
    const [a, b] = [await newSession(svc.baseUrl), await newSession(svc.baseUrl)];
    const openFor = async (token: string, client: string) =>
      cleanup.defer(await openEvents(svc.baseUrl, { headers: { ...bearer(token), 'x-forwarded-for': client } }), (x) =>
        x.close(),
      );
    expect((await openFor(a.token, '2001:db8:1:2::1')).status).toBe(200);
    expect((await openFor(b.token, '2001:db8:1:2::2')).status).toBe(200);
    // A third stream of the same /64 (the same client, whatever its session) is one too many: 20 / 10.
    expect((await openFor(box.token, '2001:db8:1:2::3')).status).toBe(429);
    // Another client behind the same proxy has its own.
    expect((await openFor(box.token, '198.51.100.7')).status).toBe(200);
  });

  it('answers HEAD with the headers alone, holds no stream place, and a GET pipelined after it is answered', async () => {
    const svc = await service({ eventStreamsPerSession: 1 });
    const box = await newSession(svc.baseUrl);
    const url = new URL(svc.baseUrl);
    const socket = cleanup.defer(net.connect(Number(url.port), url.hostname), (s) => s.destroy());
    socket.on('error', () => undefined);
    let got = '';
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    const ask = (method: string, path: string) => `${method} ${path}?token=${box.token} HTTP/1.1\r\nHost: x\r\n\r\n`;
    socket.write(ask('HEAD', '/events') + ask('GET', '/check-mail'));
    await waitFor(() => got.includes('"messages"'), { message: 'the pipelined GET answered' });
    const [head] = got.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toContain('content-type: text/event-stream');
    // No body: the next thing on the line is the GET's answer.
    expect(got.split('\r\n\r\n')[1]).toMatch(/^HTTP\/1\.1 200 /);
    // The HEAD took no place: the session's one stream opens.
    const stream = cleanup.defer(await openEvents(svc.baseUrl, { headers: bearer(box.token) }), (s) => s.close());
    expect(stream.status).toBe(200);
  });

  it('ends every stream cleanly when the service closes', async () => {
    const svc = await startTestService();
    const box = await newSession(svc.baseUrl);
    const streams = [
      await openEvents(svc.baseUrl, { headers: bearer(box.token) }),
      await openEvents(svc.baseUrl, { headers: bearer(box.token) }),
    ];
    await svc.close();
    // Ended by the service (a whole chunked answer), not cut when its grace time ran out.
    expect(await Promise.all(streams.map((s) => s.ended))).toEqual(['end', 'end']);
  });
});

describe('the token in an Authorization: Bearer header', () => {
  it('works on every route that takes a token, and a different token in the URL as well is refused', async () => {
    const svc = await service();
    const box = await newSession(svc.baseUrl);
    await sendMail(svc, { to: box.email, subject: 'by header' });
    const list = await call(svc.baseUrl, '/check-mail', { headers: bearer(box.token) });
    expect(list.status).toBe(200);
    expect(list.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['by header']);
    const id = list.json!.messages[0].id;
    expect(
      (await call(svc.baseUrl, '/read-mail', { query: { id }, headers: bearer(box.token) })).json!.message.subject,
    ).toBe('by header');
    expect(
      (await call(svc.baseUrl, '/raw-mail', { query: { id }, headers: bearer(box.token) })).bytes.toString(),
    ).toContain('Subject: by header');
    // The same token in both places is one token; another one is refused before anything is done.
    expect(
      (await call(svc.baseUrl, '/check-mail', { query: { token: box.token }, headers: bearer(box.token) })).status,
    ).toBe(200);
    const clash = await call(svc.baseUrl, '/delete-mail', {
      form: { token: 'someone-else', id },
      headers: bearer(box.token),
    });
    expect(clash.status).toBe(400);
    expect(clash.json).toMatchObject({ error: 'bad_request' });
    expect((await call(svc.baseUrl, '/delete-mail', { form: { id }, headers: bearer(box.token) })).status).toBe(200);
    // Another scheme (a proxy's Basic login passed on) is not a token.
    const basic = await call(svc.baseUrl, '/check-mail', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(svc.logs.join('\n')).not.toContain(box.token);
  });

  it('is offered on every answer, errors included, by the Tempmail-Capabilities header', async () => {
    const svc = await service();
    for (const path of ['/domains', '/check-mail', '/no-such-route', '/health']) {
      expect((await call(svc.baseUrl, path)).headers.get('tempmail-capabilities'), path).toBe('bearer, events');
    }
  });

  it('without an admin token the admin routes are not there, whatever the method', async () => {
    const svc = await service();
    for (const [method, path] of [
      ['GET', '/admin/stats'],
      ['POST', '/admin/stats'],
      ['GET', '/admin/block'],
    ] as const) {
      const res = await call(svc.baseUrl, path, { method, headers: bearer('a'.repeat(32)) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toMatchObject({ error: 'not_found', message: 'No such route' });
    }
  });
});
