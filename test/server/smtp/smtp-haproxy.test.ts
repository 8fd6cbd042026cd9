/**
 * The built `serve` behind a real HAProxy (Debian's haproxy; .ci/run installs it) that sends the PROXY
 * protocol v2 (`send-proxy-v2`) from its own address (`source 127.0.0.40`, listed in trustedProxies):
 * senders on distinct loopback addresses are each held to their own per-client share, and named in the
 * log, though every connection reaches serve from the proxy. Without haproxy a developer's run says
 * loudly that this test is left out; under CI=true it fails instead. The same senders meet an IP block
 * of their own, and the admin API finds their mail under their own address. A HAProxy whose address is
 * not listed is not believed: the sender behind it reads why in one line.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDaemon } from '../../harness/daemon';
import { requireDebianProgram } from '../../harness/debian-program';
import { closedPort } from '../../harness/ports';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const HAPROXY = requireDebianProgram('haproxy', 'haproxy', 'test/server/smtp/smtp-haproxy.test.ts');

const cleanup = cleanupAfterEach();
const PROXY = '127.0.0.40';

/** HAProxy in front of `smtpPort`, as docs/server/smtp.md shows it; resolves with its port once it listens. */
async function startHaproxy(dir: string, smtpPort: number, source = PROXY): Promise<number> {
  const port = await closedPort();
  const file = join(dir, 'haproxy.cfg');
  await writeFile(
    file,
    `defaults
  mode tcp
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend smtp
  bind 127.0.0.1:${port}
  default_backend tempmail
backend tempmail
  source ${source}
  server serve 127.0.0.1:${smtpPort} send-proxy-v2
`,
  );
  await startDaemon(cleanup, HAPROXY!, ['-db', '-f', file], port);
  return port;
}

describe.skipIf(!HAPROXY)('serve behind HAProxy with send-proxy-v2', () => {
  it('holds each sender behind the proxy to its own share of connections and names it in the log', async () => {
    const dir = await cleanup.tempDir('tempmail-haproxy-');
    const config = join(dir, 'serve.json');
    await writeFile(config, JSON.stringify({ trustedProxies: [PROXY], smtpConnectionsPerClient: 2 }));
    const serve = cleanup.defer(await startServeProcess(['--data-dir', join(dir, 'data'), '--config', config]), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    const front = { smtpHost: '127.0.0.1', smtpPort: await startHaproxy(dir, serve.smtpPort) };
    const open = async (from: string) => cleanup.defer(await openSmtp(front, 10_000, from), (c) => c.destroy());

    for (let i = 0; i < 2; i++) expect((await open('127.0.0.5')).greeting).toMatch(/^220 /);
    expect((await open('127.0.0.5')).greeting).toBe(
      '421 4.7.0 Too many connections from your address (at most 2 at once), try again later',
    );
    // Another sender through the same proxy still gets in, and the log names it, not the proxy.
    const other = await open('127.0.0.6');
    expect(other.greeting).toMatch(/^220 /);
    expect(await other.command('EHLO other.test')).toMatch(/^250/);
    expect(await other.command('MAIL FROM:<a@x.org>')).toMatch(/^250/);
    expect(await other.command('RCPT TO:<nobody@tempmail.test>')).toMatch(/^550/);
    await waitFor(() => /smtp refused RCPT nobody@tempmail\.test .*client=127\.0\.0\.6/.test(serve.stderr()), {
      message: 'the refused RCPT of 127.0.0.6 in the log',
    });
    expect(serve.stderr()).toMatch(/smtp refused a connection from 127\.0\.0\.5: 421 .*client=127\.0\.0\.5/);
    expect(serve.stderr()).not.toContain(`client=${PROXY}`);
  });

  it('blocks one sender behind the proxy by its own address, and the admin API finds mail by the real sender', async () => {
    const dir = await cleanup.tempDir('tempmail-haproxy-');
    const token = 'admin-0123456789abcdef-0123456789';
    await writeFile(join(dir, 'admin-token'), `${token}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'serve.json'), JSON.stringify({ trustedProxies: [PROXY] }));
    const serve = cleanup.defer(
      await startServeProcess([
        ...['--data-dir', join(dir, 'data'), '--config', join(dir, 'serve.json')],
        ...['--admin-token-file', join(dir, 'admin-token')],
      ]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const admin = (path: string, form?: Record<string, string>) =>
      call(serve.baseUrl, path, {
        headers: { authorization: `Bearer ${token}` },
        ...(form ? { form } : { query: {} }),
      });
    const front = { smtpHost: '127.0.0.1', smtpPort: await startHaproxy(dir, serve.smtpPort) };
    const open = async (from: string) => cleanup.defer(await openSmtp(front, 10_000, from), (c) => c.destroy());

    expect((await admin('/admin/block', { kind: 'ip', value: '127.0.0.5' })).status).toBe(200);
    expect((await open('127.0.0.5')).greeting).toMatch(/^554 5\.7\.1 Connections from your address are refused/);
    const box = await newSession(serve.baseUrl);
    const other = await open('127.0.0.6');
    for (const line of ['EHLO other.test', 'MAIL FROM:<a@example.org>', `RCPT TO:<${box.email}>`])
      expect(await other.command(line)).toMatch(/^250/);
    expect(await other.command('DATA')).toMatch(/^354/);
    other.write('Subject: through haproxy\r\n\r\nhello\r\n.\r\n');
    expect(await other.reply()).toMatch(/^250 /);
    const found = async (client: string) =>
      (
        await call(serve.baseUrl, '/admin/messages', {
          headers: { authorization: `Bearer ${token}` },
          query: { client_ip: client },
        })
      ).json!.messages.map((m: { subject: string; client_ip: string }) => `${m.subject} ${m.client_ip}`);
    expect(await found('127.0.0.6')).toEqual(['through haproxy 127.0.0.6']);
    expect(await found(PROXY)).toEqual([]);
    expect(serve.stderr()).toMatch(
      /smtp refused connection from 127\.0\.0\.5: blocked \(ip 127\.0\.0\.5\) \| client=127\.0\.0\.5/,
    );
    expect(serve.stderr()).not.toContain(`client=${PROXY}`);
  });

  it('refuses the header of a HAProxy that is not in trustedProxies, in one line its sender reads', async () => {
    const dir = await cleanup.tempDir('tempmail-haproxy-');
    await writeFile(join(dir, 'serve.json'), JSON.stringify({ trustedProxies: [PROXY] }));
    const serve = cleanup.defer(
      await startServeProcess(['--data-dir', join(dir, 'data'), '--config', join(dir, 'serve.json')]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const front = { smtpHost: '127.0.0.1', smtpPort: await startHaproxy(dir, serve.smtpPort, '127.0.0.42') };
    const sender = cleanup.defer(await openSmtp(front, 10_000, '127.0.0.5'), (c) => c.destroy());
    expect(sender.greeting).toBe('421 4.7.0 PROXY header refused: 127.0.0.42 is not a trusted proxy');
    await sender.closed;
    await waitFor(() => serve.stderr().includes('smtp refused a PROXY header from 127.0.0.42'), {
      message: 'the warning naming the unlisted proxy',
    });
    expect(serve.stderr()).not.toContain('127.0.0.5');
  });
});
