/**
 * On a real domain the HTTP API sits behind a reverse proxy on the same machine (HTTPS there), while SMTP
 * listens on every interface: separate listen addresses for the two, and, with trustProxy, the client
 * for the per-client rate limit is the address the proxy appended to X-Forwarded-For, not the proxy.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startTestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';

const cleanup = cleanupAfterEach();
const create = (baseUrl: string, forwardedFor?: string) =>
  call(baseUrl, '/create-session', {
    form: {},
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });

/** True when something accepts TCP connections on host:port. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('serve behind a reverse proxy', () => {
  it('with trustProxy, rate-limits each client the proxy names, not the proxy itself', async () => {
    const svc = cleanup.defer(await startTestService({ createPerMinute: 2, trustProxy: true }), (s) => s.close());
    for (let i = 0; i < 2; i++) expect((await create(svc.baseUrl, '203.0.113.7')).status).toBe(200);
    expect((await create(svc.baseUrl, '203.0.113.7')).status).toBe(429);
    // Another client behind the same proxy has its own allowance.
    expect((await create(svc.baseUrl, '198.51.100.20')).status).toBe(200);
    // What a client claims before the proxy's entry does not count: the last address is the one.
    expect((await create(svc.baseUrl, '198.51.100.99, 203.0.113.7')).status).toBe(429);
    expect((await create(svc.baseUrl, '203.0.113.7, 2001:db8::5')).status).toBe(200);
    // No header, or not an address: the proxy itself is the client.
    expect((await create(svc.baseUrl)).status).toBe(200);
    expect((await create(svc.baseUrl, 'unknown')).status).toBe(200);
    expect((await create(svc.baseUrl, 'garbage')).status).toBe(429);
  });

  it('counts a 6to4 or Teredo client as the IPv4 host it is: a new /64 of its own is no new allowance', async () => {
    // 2002:c000:204::/48 is 192.0.2.4's: keyed by /64, one host had 65,536 allowances.
    const svc = cleanup.defer(await startTestService({ createPerMinute: 2, trustProxy: true }), (s) => s.close());
    expect((await create(svc.baseUrl, '2002:c000:204:1::1')).status).toBe(200);
    expect((await create(svc.baseUrl, '2002:c000:204:2::1')).status).toBe(200);
    expect((await create(svc.baseUrl, '2002:c000:204:3::1')).status).toBe(429);
    expect((await create(svc.baseUrl, '192.0.2.4')).status).toBe(429);
    // Teredo: the client 192.0.2.45 (inverted in the last 32 bits), whatever port and flags it picks.
    expect((await create(svc.baseUrl, '2001:0:4136:e378:8000:63bf:3fff:fdd2')).status).toBe(200);
    expect((await create(svc.baseUrl, '2001:0:4136:e378:0:1234:3fff:fdd2')).status).toBe(200);
    expect((await create(svc.baseUrl, '2001:0:4136:e378:8000:ffff:3fff:fdd2')).status).toBe(429);
  });

  it('knows a trusted proxy however trustedProxies spells its address', async () => {
    // The test service's peer is 127.0.0.1; listed as its IPv4-mapped IPv6 form in capitals.
    const svc = cleanup.defer(
      await startTestService({ createPerMinute: 1, trustedProxies: ['::FFFF:127.0.0.1'] }),
      (s) => s.close(),
    );
    expect((await create(svc.baseUrl, '203.0.113.7')).status).toBe(200);
    expect((await create(svc.baseUrl, '198.51.100.20')).status).toBe(200);
    // A forwarded address is read in the normal form too: one client however it is spelled.
    expect((await create(svc.baseUrl, '::FFFF:203.0.113.7')).status).toBe(429);
  });

  it('without trustProxy, X-Forwarded-For is ignored: a client cannot pick its own rate-limit bucket', async () => {
    const svc = cleanup.defer(await startTestService({ createPerMinute: 2 }), (s) => s.close());
    expect((await create(svc.baseUrl, '203.0.113.1')).status).toBe(200);
    expect((await create(svc.baseUrl, '203.0.113.2')).status).toBe(200);
    expect((await create(svc.baseUrl, '203.0.113.3')).status).toBe(429);
  });

  it('listens for HTTP and SMTP on separate addresses when told', async () => {
    const svc = cleanup.defer(
      await startTestService({ host: '127.0.0.1', httpHost: '127.0.0.1', smtpHost: '127.0.0.2' }),
      (s) => s.close(),
    );
    expect(svc.smtpHost).toBe('127.0.0.2');
    const httpPort = Number(new URL(svc.baseUrl).port);
    expect(await accepts('127.0.0.1', httpPort)).toBe(true);
    expect(await accepts('127.0.0.2', httpPort)).toBe(false);
    expect(await accepts('127.0.0.1', svc.smtpPort)).toBe(false);
    const c = await openSmtp(svc);
    expect(await c.command('EHLO split.test')).toMatch(/^250/);
    await c.command('QUIT');
  });
});
