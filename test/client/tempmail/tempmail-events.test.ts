/**
 * The tempmail provider's new-mail push against the real reference service over real HTTP (mail over
 * real SMTP): live once the stream is open, onMail once then (mail stored before the stream may have
 * been missed) and for each message, the stream opened again after the connection is cut (and onMail
 * again), and the watch ended for good when the session expires or is deleted. A service that does not offer the stream is never asked for it.
 */
import net from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MailWatch, PushState } from '../../../src/client/client-types';
import { createTempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { sendJson, startFixtureServer } from '../fixture-server';

const cleanup = cleanupAfterEach();
let watch: MailWatch | undefined;
afterEach(() => {
  watch?.stop();
  watch = undefined;
});

async function watching(baseUrl: string) {
  const provider = createTempmailProvider({ baseUrl, retries: 0 });
  const session = await provider.createSession();
  const states: PushState[] = [];
  let mail = 0;
  watch = provider.watchMail!(session, { onMail: () => (mail += 1), onState: (s) => states.push(s) });
  return { provider, session, states, mail: () => mail };
}

/**
 * A TCP relay to `port` whose connections a test can cut, or freeze: a frozen one stays open and passes
 * nothing more either way (a network that drops a connection without a word: a NAT that forgot it, a
 * laptop that slept). Connections made after a freeze pass as usual.
 */
async function relay(port: number) {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [inbound, outbound];
    pairs.add(pair);
    for (const s of pair) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        pairs.delete(pair);
      });
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return cleanup.defer(
    {
      url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`,
      cut: () => {
        for (const s of sockets) s.destroy();
      },
      freeze: () => {
        for (const [inbound, outbound] of pairs) {
          inbound.unpipe(outbound);
          outbound.unpipe(inbound);
          inbound.pause();
          outbound.pause();
        }
        pairs.clear();
      },
    },
    (r) => {
      r.cut();
      return new Promise((resolve) => server.close(resolve));
    },
  );
}

const streamsOpened = (svc: TestService) => svc.logs.filter((l) => / \/events 200 /.test(l)).length;

describe('tempmail new-mail push (GET /events)', () => {
  it('is live once the stream is open, calls onMail then, and for each message', async () => {
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    const w = await watching(svc.baseUrl);
    await waitFor(() => w.states.includes('live'), { message: 'the stream to open' });
    expect(w.states[0]).toBe('connecting');
    await waitFor(() => w.mail() === 1, { message: 'the news that mail may have come before the stream' });
    await sendMail(svc, { to: w.session.email, subject: 'one' });
    await waitFor(() => w.mail() === 2, { message: 'the first news' });
    await sendMail(svc, { to: w.session.email, subject: 'two' });
    await waitFor(() => w.mail() === 3, { message: 'the second news' });
    // The stream carried the token in a header (the service takes it there): no URL held it.
    expect(svc.logs.join('\n')).not.toContain(w.session.token);
  });

  it('opens the stream again when the connection is cut, and says mail may have come meanwhile', async () => {
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    const r = await relay(Number(new URL(svc.baseUrl).port));
    const w = await watching(r.url);
    await waitFor(() => w.states.includes('live'), { message: 'the stream to open' });
    r.cut();
    await waitFor(() => w.states.filter((s) => s === 'live').length === 2, {
      timeoutMs: 10_000,
      message: 'the stream to open again',
    });
    expect(w.states).toEqual(['connecting', 'live', 'down', 'connecting', 'live']);
    await waitFor(() => w.mail() === 2, { message: 'the news that mail may have come while the stream was away' });
    await sendMail(svc, { to: w.session.email, subject: 'after the cut' });
    await waitFor(() => w.mail() === 3, { message: 'news after the cut' });
  });

  it('opens the stream again when it falls silent past three of the heartbeats the service announced', async () => {
    // A connection dropped without a word (no reset ever comes) left the watch "live" for good: the app
    // said "instant" while mail waited for the next poll, which may be minutes away.
    const svc = cleanup.defer(await startTestService({ eventsHeartbeatMs: 1000 }), (s) => s.close());
    const r = await relay(Number(new URL(svc.baseUrl).port));
    const w = await watching(r.url);
    await waitFor(() => w.states.includes('live'), { message: 'the stream to open' });
    r.freeze();
    await waitFor(() => w.states.filter((s) => s === 'live').length === 2, {
      timeoutMs: 15_000,
      message: 'the stream to open again after its silence',
    });
    expect(w.states).toEqual(['connecting', 'live', 'down', 'connecting', 'live']);
    await sendMail(svc, { to: w.session.email, subject: 'after the silence' });
    await waitFor(() => w.mail() === 3, { message: 'news on the new stream' });
  });

  it('ends for good when the session expires, or is deleted', async () => {
    const svc = cleanup.defer(await startTestService({ lifetimeSeconds: 1 }), (s) => s.close());
    const w = await watching(svc.baseUrl);
    await waitFor(() => w.states.at(-1) === 'down', { timeoutMs: 5000, message: 'the watch to end at expiry' });
    expect(w.states).toEqual(['connecting', 'live', 'down']);
    expect(w.mail()).toBe(1);

    const dir = await cleanup.tempDir('tempmail-events-');
    await writeFile(join(dir, 'token'), 'admin-token-for-the-events-test');
    const withAdmin = cleanup.defer(await startTestService({ adminTokenFile: join(dir, 'token') }), (s) => s.close());
    const d = await watching(withAdmin.baseUrl);
    await waitFor(() => d.states.includes('live'), { message: 'the stream to open' });
    const [{ id }] = (
      await call(withAdmin.baseUrl, '/admin/sessions', {
        query: { recipient: d.session.email },
        headers: { authorization: 'Bearer admin-token-for-the-events-test' },
      })
    ).json!.sessions;
    expect(
      (
        await call(withAdmin.baseUrl, '/admin/delete-session', {
          form: { session_id: id },
          headers: { authorization: 'Bearer admin-token-for-the-events-test' },
        })
      ).status,
    ).toBe(200);
    // Cut by the delete, asked again once (401: the session is gone), and given up.
    await waitFor(
      () =>
        d.states.at(-1) === 'down' &&
        streamsOpened(withAdmin) === 1 &&
        withAdmin.logs.some((l) => / \/events 401 /.test(l)),
      {
        timeoutMs: 10_000,
        message: 'the watch to end after the delete',
      },
    );
    expect(d.states).toEqual(['connecting', 'live', 'down', 'connecting', 'down']);
  });

  it('never asks a service that does not offer it', async () => {
    const srv = cleanup.defer(
      await startFixtureServer((req, res) => {
        if (req.path === '/create-session')
          return sendJson(res, 200, {
            status: 'success',
            email: 'a@x.test',
            token: 'tok_abcdefghijklmnop',
            expires_at: '2030-01-01 00:00:00',
          });
        sendJson(res, 200, { status: 'success', messages: [] });
      }),
      (s) => s.close(),
    );
    const w = await watching(srv.baseUrl);
    await waitFor(() => w.states.at(-1) === 'down', { message: 'the watch to end' });
    expect(w.states).toEqual(['connecting', 'down']);
    expect(srv.requests.map((r) => r.path)).toEqual(['/create-session']);
  });
});
