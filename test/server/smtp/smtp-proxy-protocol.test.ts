/**
 * The PROXY protocol on the SMTP listener (issue 40.1): from a load balancer in `trustedProxies` the
 * header's client is the session's client (per-client limits, the log); from anyone else a header is
 * not believed. Real TCP from distinct loopback addresses (127.0.0.40 is the trusted proxy) to the
 * real service.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startTestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const PROXY = '127.0.0.40';
const SIG = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** A v2 PROXY header (TCP over IPv4) naming `client`:`port` as the sender. */
function v2(client: string, port: number): Buffer {
  const body = Buffer.alloc(12);
  body.set(client.split('.').map(Number), 0);
  body.set([127, 0, 0, 1], 4);
  body.writeUInt16BE(port, 8);
  body.writeUInt16BE(25, 10);
  return Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0x00, 12]), body]);
}

const v1 = (client: string) => Buffer.from(`PROXY TCP4 ${client} 127.0.0.1 40000 25\r\n`);

/** Everything `socket` hears until the server closes it. */
function heardUntilClosed(socket: net.Socket): Promise<string> {
  let heard = '';
  socket.on('data', (chunk: Buffer) => (heard += chunk.toString('latin1')));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.on('close', () => resolve(heard)));
}

describe('SMTP behind a load balancer speaking the PROXY protocol', () => {
  it("counts a trusted proxy's connections under the senders its v2 and v1 headers name", async () => {
    const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY], smtpConnectionsPerClient: 2 }), (s) =>
      s.close(),
    );
    const open = async (header: Buffer) =>
      cleanup.defer(await openSmtp(svc, 10_000, PROXY, header), (c) => c.destroy());
    // Two connections of 203.0.113.7 through the proxy fill that sender's share...
    for (let i = 0; i < 2; i++) expect((await open(v2('203.0.113.7', 40_000 + i))).greeting).toMatch(/^220 /);
    const third = await open(v2('203.0.113.7', 40_002));
    expect(third.greeting).toBe(
      '421 4.7.0 Too many connections from your address (at most 2 at once), try again later',
    );
    expect(svc.logs.filter((l) => l.includes('refused a connection'))).toEqual([
      'smtp refused a connection from 203.0.113.7: 421 4.7.0 Too many connections from your address (at most 2 at once), try again later | client=203.0.113.7 reason=per-client',
    ]);
    // ...and only that sender's: others behind the same proxy (v2 and v1 headers) are let in.
    expect((await open(v2('203.0.113.8', 40_003))).greeting).toMatch(/^220 /);
    const viaV1 = await open(v1('198.51.100.9'));
    expect(viaV1.greeting).toMatch(/^220 /);
    expect(await viaV1.command('EHLO v1.test')).toMatch(/^250/);
    expect(await viaV1.command('MAIL FROM:<a@x.org>')).toMatch(/^250/);
    expect(await viaV1.command('RCPT TO:<nobody@tempmail.test>')).toMatch(/^550/);
    expect(svc.logs.find((l) => l.startsWith('smtp refused RCPT nobody@tempmail.test'))).toMatch(
      / \| client=198\.51\.100\.9 tls=no /,
    );
  });

  it.each([
    ['v1 before the greeting', v1('203.0.113.7'), true],
    ['v2 before the greeting', v2('203.0.113.7', 40_000), true],
    ['v1 after the greeting', v1('203.0.113.7'), false],
  ])(
    'refuses in one line, and never believes, a %s header from a peer not in trustedProxies',
    async (_, header, early) => {
      const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY] }), (s) => s.close());
      const other = net.connect({ port: svc.smtpPort, host: svc.smtpHost, localAddress: '127.0.0.41' });
      const heard = heardUntilClosed(other);
      await new Promise<void>((resolve) => other.once('connect', () => resolve()));
      if (!early) await waitFor(() => other.bytesRead > 0, { message: 'the greeting' });
      other.write(header);
      const refusal = '421 4.7.0 PROXY header refused: 127.0.0.41 is not a trusted proxy\r\n';
      expect(await heard).toBe(early ? refusal : `${(await heard).split('\r\n')[0]}\r\n${refusal}`);
      expect(svc.logs.filter((l) => l.includes('PROXY header from'))).toEqual([
        'smtp refused a PROXY header from 127.0.0.41: not in trustedProxies, so not believed | client=127.0.0.41 reason=untrusted_proxy',
      ]);
      expect(svc.logs.join('\n')).not.toContain('203.0.113.7');
      expect(svc.ops.stats().smtp.connectionsRefused).toEqual({ untrusted_proxy: 1 });
    },
  );

  it('refuses a header from anyone when trustedProxies is empty, and talks to everyone else as before', async () => {
    const svc = cleanup.defer(await startTestService({ trustedProxies: [] }), (s) => s.close());
    const proxied = net.connect({ port: svc.smtpPort, host: svc.smtpHost, localAddress: PROXY });
    const heard = heardUntilClosed(proxied);
    proxied.write(v2('203.0.113.7', 40_000));
    expect(await heard).toBe('421 4.7.0 PROXY header refused: 127.0.0.40 is not a trusted proxy\r\n');
    const plain = cleanup.defer(await openSmtp(svc, 10_000, PROXY), (c) => c.destroy());
    expect(plain.greeting).toMatch(/^220 /);
    expect(await plain.command('EHLO plain.test')).toMatch(/^250/);
    expect(await plain.command('PROXY TCP4 203.0.113.7 127.0.0.1 40000 25')).toMatch(/^500 /);
  });

  it('closes, with a warning, a trusted proxy connection that does not start with a header, and passes on what follows one', async () => {
    const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY] }), (s) => s.close());
    const port = svc.smtpPort;
    const bare = net.connect({ port, host: svc.smtpHost, localAddress: PROXY });
    const bareHeard = heardUntilClosed(bare);
    bare.write('EHLO no-header.test\r\n');
    expect(await bareHeard).toBe('');
    await waitFor(
      () => svc.logs.find((l) => l.startsWith(`smtp closed a connection from proxy ${PROXY}: no PROXY header`)),
      { message: 'the warning about the missing header' },
    );
    // Bytes in the same packet as the header reach smtp-server: here a client talking before the greeting.
    const early = net.connect({ port, host: svc.smtpHost, localAddress: PROXY });
    const earlyHeard = heardUntilClosed(early);
    early.write(Buffer.concat([v2('203.0.113.9', 40_009), Buffer.from('EHLO early.test\r\n')]));
    expect(await earlyHeard).toMatch(/You talk too soon/);
  });

  it('closes a trusted proxy connection that sends nothing once its 5 s for a header are up', async () => {
    const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY] }), (s) => s.close());
    const silent = net.connect({ port: svc.smtpPort, host: svc.smtpHost, localAddress: PROXY });
    // Nothing is said to it (no greeting before the header), and it is closed.
    expect(await heardUntilClosed(silent)).toBe('');
    expect(svc.logs.find((l) => l.includes('closed a connection from proxy'))).toMatch(
      /^smtp closed a connection from proxy 127\.0\.0\.40: no PROXY header within 5 s \| client=127\.0\.0\.40 reason=bad_proxy_header$/,
    );
    expect(svc.ops.stats().smtp.connectionsRefused).toEqual({ bad_proxy_header: 1 });
  });

  it('closes, counted and with a warning, a proxy connection past the number that may wait for a header', async () => {
    // smtp-server takes smtpMaxConnections + 50 connections: as many may wait for their header at once.
    const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY], smtpMaxConnections: 1 }), (s) =>
      s.close(),
    );
    const open = () =>
      cleanup.defer(net.connect({ port: svc.smtpPort, host: svc.smtpHost, localAddress: PROXY }), (s) => s.destroy());
    const waiting = Array.from({ length: 51 }, open);
    for (const socket of waiting) socket.on('error', () => {});
    await Promise.all(waiting.map((s) => new Promise<void>((resolve) => s.once('connect', () => resolve()))));
    const extra = open();
    expect(await heardUntilClosed(extra)).toBe('');
    expect(svc.logs.filter((l) => l.includes('already wait'))).toEqual([
      'smtp closed a connection from proxy 127.0.0.40: 51 already wait for their PROXY header | client=127.0.0.40 reason=too_many_waiting',
    ]);
    expect(svc.ops.stats().smtp.connectionsRefused).toEqual({ proxy_waiting: 1 });
    expect(waiting.every((s) => !s.destroyed)).toBe(true);
  });

  it('closes the connections still waiting for a header when the service stops', async () => {
    const svc = cleanup.defer(await startTestService({ trustedProxies: [PROXY] }), (s) => s.close());
    const waiting = net.connect({ port: svc.smtpPort, host: svc.smtpHost, localAddress: PROXY });
    const heard = heardUntilClosed(waiting);
    await new Promise<void>((resolve) => waiting.once('connect', () => resolve()));
    // Half a header: the service is waiting for the rest.
    waiting.write(v1('203.0.113.7').subarray(0, 10));
    await svc.close();
    expect(await heard).toBe('');
    // It was closed by the stop, not by its deadline.
    expect(svc.logs.filter((l) => l.includes('no PROXY header'))).toEqual([]);
  });
});
