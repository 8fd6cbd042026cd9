/**
 * HTTP connections at once, over real sockets: each client is a loopback address of its own (127.0.0.5,
 * 127.0.0.6 ... connecting to the service on 127.0.0.1). A connection that never sends a byte is held by
 * the service until its request is late (15 s by default); without a bound per client one client held
 * as many as it liked, and at ~1,000 (systemd's default file-descriptor limit) SMTP and the data dir
 * failed for everyone. The metrics listener is bounded the same way.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { callFrom } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import type { ServerConfig } from '../../../src/server/config/server-config';

const cleanup = cleanupAfterEach();

interface RawConnection {
  /** What the service sent so far. */
  text(): string;
  /** Resolves when the service closed the connection (or it failed). */
  closed: Promise<void>;
  destroy(): void;
}

/** A TCP connection from loopback address `from` that sends nothing. */
async function connect(url: string, from: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress: from });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return cleanup.defer({ text: () => text, closed, destroy: () => socket.destroy() }, (c) => c.destroy());
}

async function service(overrides: Partial<ServerConfig>): Promise<TestService> {
  // Silent connections are held for the whole header limit: long enough that none is let go by it here.
  return cleanup.defer(
    await startTestService({ httpHeadersTimeoutMs: 60_000, httpRequestTimeoutMs: 60_000, ...overrides }),
    (s) => s.close(),
  );
}

/** Waits for the service to count `n` HTTP connections open. */
const opened = (svc: TestService, n: number) =>
  waitFor(() => svc.ops.stats().http.connectionsOpen === n, {
    message: `${n} HTTP connections counted open (${svc.ops.stats().http.connectionsOpen})`,
  });

/** Waits for the service to answer a connection that sent nothing, and to close it. */
async function answered(c: RawConnection): Promise<string> {
  await waitFor(() => c.text() !== '', { message: 'an answer at once to a connection that sent nothing' });
  await c.closed;
  return c.text();
}

describe('HTTP connections per client', () => {
  it("answers 429 and closes past a client's share, logs that client once, and leaves other clients and a freed slot alone", async () => {
    const svc = await service({ httpConnectionsPerClient: 3 });
    const held: RawConnection[] = [];
    // Taken in the order they connect: the fourth comes after the three.
    for (let i = 0; i < 3; i++) held.push(await connect(svc.baseUrl, '127.0.0.5'));
    for (let i = 0; i < 4; i++) {
      const refused = await connect(svc.baseUrl, '127.0.0.5');
      expect(await answered(refused)).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
      expect(refused.text().toLowerCase()).toContain('retry-after: 10');
      // The headers every answer carries (docs/server/openapi.yaml), though no request was read.
      for (const header of [
        'tempmail-capabilities: bearer, events',
        'cache-control: no-store',
        'x-content-type-options: nosniff',
      ]) {
        expect(refused.text().toLowerCase()).toContain(header);
      }
      expect(JSON.parse(refused.text().slice(refused.text().indexOf('\r\n\r\n') + 4))).toEqual({
        status: 'error',
        error: 'too_many_connections',
        message: 'Too many connections from your address (at most 3 at once)',
      });
    }
    // Another client, and this machine (a proxy, the app), are not held back by the first one's.
    expect((await callFrom('127.0.0.6', svc.baseUrl, '/health')).status).toBe(200);
    expect((await callFrom('127.0.0.1', svc.baseUrl, '/health')).status).toBe(200);
    const lines = svc.logs.filter((l) => l.includes('refused a connection from 127.0.0.5'));
    expect(lines).toEqual([
      'http refused a connection from 127.0.0.5: 429 (at most 3 at once from one client) | client=127.0.0.5 reason=per-client',
    ]);
    expect(svc.ops.stats().http.connectionsRefused).toEqual({ 'per-client': 4 });
    // One of the three leaves: the client is served again.
    held[0]!.destroy();
    await opened(svc, 2);
    expect((await callFrom('127.0.0.5', svc.baseUrl, '/health')).status).toBe(200);
  });

  it('counts every connection in the total (503 past it), those of this machine too, which have no share of their own', async () => {
    const svc = await service({ httpMaxConnections: 5, httpConnectionsPerClient: 1 });
    // 127.0.0.1 is a proxy or the app: past one connection, but within the total.
    for (let i = 0; i < 4; i++) await connect(svc.baseUrl, '127.0.0.1');
    await connect(svc.baseUrl, '127.0.0.5');
    const over = await connect(svc.baseUrl, '127.0.0.6');
    expect(await answered(over)).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over.text()).toContain('"error":"too_many_connections"');
    expect(svc.ops.stats().http.connectionsRefused).toEqual({ total: 1 });
  });

  it('sees the clients behind a trusted proxy by their requests, not by the connections they share', async () => {
    // A listed balancer's connections count in the total only: a share per client would cut them all off.
    const svc = await service({ httpConnectionsPerClient: 2, trustedProxies: ['127.0.0.9'] });
    for (let i = 0; i < 4; i++) await connect(svc.baseUrl, '127.0.0.9');
    await opened(svc, 4);
    expect((await callFrom('127.0.0.9', svc.baseUrl, '/health')).status).toBe(200);
    expect(svc.ops.stats().http.connectionsRefused).toEqual({});
  });
});

describe('the metrics listener', () => {
  it("holds a few connections at once, and lets a silent one go at the HTTP port's header limit", async () => {
    const svc = cleanup.defer(
      await startTestService({
        metrics: true,
        metricsListen: { host: '127.0.0.1', port: 0 },
        httpHeadersTimeoutMs: 1000,
        httpRequestTimeoutMs: 1000,
      }),
      (s) => s.close(),
    );
    const url = svc.ops.metricsUrl!;
    // A silent connection: 408 at the header limit (Node's defaults held it up to 90 s).
    const silent = await connect(url, '127.0.0.5');
    await waitFor(() => silent.text() !== '', {
      timeoutMs: 10_000,
      message: 'the metrics listener to answer a silent connection',
    });
    expect(silent.text()).toMatch(/^HTTP\/1\.1 408 /);
    await silent.closed;
    // 16 at once; the 17th is closed at once, unanswered.
    const held: RawConnection[] = [];
    for (let i = 0; i < 16; i++) held.push(await connect(url, '127.0.0.5'));
    const over = await connect(url, '127.0.0.5');
    await over.closed;
    expect(over.text()).toBe('');
    for (const c of held) c.destroy();
    await Promise.all(held.map((c) => c.closed));
    const scrape = await waitFor(
      async () => {
        const res = await fetch(url).catch(() => undefined);
        return res?.status === 200 ? res.text() : undefined;
      },
      { message: 'a scrape once the connections left' },
    );
    expect(scrape).toContain('tempmail_http_connections_open');
  });
});
