/**
 * A client that trickles one byte at a time never lets the idle timeout fire, so without a total limit
 * it held its connection (and one of the 200 slots) for ever. Real trickling clients over real sockets:
 * one inside DATA, one sending commands byte by byte; each hears 421 4.4.2 when its clock runs out, the
 * log says so, the cut message is not stored, and the service goes on serving.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyConfigFile } from '../../../src/server/config/serve-config';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService } from '../../harness/service';
import { openSmtp, type SmtpDialog } from '../../harness/smtp-dialog';

const cleanup = cleanupAfterEach();

/** Writes `bytes` one at a time, every `everyMs`, over and over, until the connection closes. */
function trickle(dialog: SmtpDialog, bytes: string, everyMs = 100): void {
  let i = 0;
  let open = true;
  void dialog.closed.then(() => (open = false));
  const timer = setInterval(() => {
    if (open) dialog.write(bytes[i++ % bytes.length]!);
  }, everyMs);
  cleanup.defer(timer, clearInterval);
  cleanup.defer(dialog, (d) => d.destroy());
}

describe('SMTP total time limits', () => {
  it('cuts off a DATA that trickles past smtpDataTimeoutMs with 421 4.4.2, keeps nothing of it, and goes on serving', async () => {
    // The idle timeout (1 s) never fires: a byte comes every 100 ms.
    const svc = cleanup.defer(
      await startTestService({ smtpSocketTimeoutMs: 1000, smtpDataTimeoutMs: 1500, smtpSessionTimeoutMs: 60_000 }),
      (s) => s.close(),
    );
    const box = await newSession(svc.baseUrl);
    const c = await openSmtp(svc, 15_000);
    expect(await c.command('EHLO trickle.test')).toMatch(/^250/);
    expect(await c.command('MAIL FROM:<slow@example.org>')).toMatch(/^250/);
    expect(await c.command(`RCPT TO:<${box.email}>`)).toMatch(/^250/);
    expect(await c.command('DATA')).toMatch(/^354/);
    c.write('Subject: slow\r\n\r\n');
    trickle(c, 'x');
    expect(await c.reply()).toMatch(
      /^421 4\.4\.2 Message took too long to arrive \(limit 1\.5 s\), closing connection$/,
    );
    await c.closed;
    expect(svc.logs.some((l) => /^smtp cut off DATA from 127\.0\.0\.1 after [\d.]+ s: 421 4\.4\.2 /.test(l))).toBe(
      true,
    );
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json?.messages).toEqual([]);
    await sendMail(svc, { to: box.email, subject: 'a prompt sender', text: 'on time' });
    const list = await call(svc.baseUrl, '/check-mail', { query: { token: box.token } });
    expect(list.json?.messages.map((m: { subject: string }) => m.subject)).toEqual(['a prompt sender']);
  });

  it('closes a connection that trickles commands past smtpSessionTimeoutMs with 421 4.4.2', async () => {
    const svc = cleanup.defer(await startTestService({ smtpSocketTimeoutMs: 1000, smtpSessionTimeoutMs: 1500 }), (s) =>
      s.close(),
    );
    const c = await openSmtp(svc, 15_000);
    // NOOP, one byte every 100 ms: each command completes and is answered, none is ever idle for 1 s.
    trickle(c, 'NOOP\r\n');
    let reply = '';
    while (!/^421/.test(reply)) reply = await c.reply();
    expect(reply).toBe('421 4.4.2 Connection time limit reached (1.5 s), closing connection');
    await c.closed;
    expect(svc.logs).toContain(
      'smtp closed the connection from 127.0.0.1: 421 4.4.2 Connection time limit reached (1.5 s), closing connection',
    );
    const again = await openSmtp(svc);
    expect(await again.command('EHLO again.test')).toMatch(/^250/);
    await again.command('QUIT');
  });

  it('reads both limits from the --config file, with sane defaults', async () => {
    expect(defaultServerConfig({})).toMatchObject({ smtpSessionTimeoutMs: 600_000, smtpDataTimeoutMs: 300_000 });
    const dir = await cleanup.tempDir('tempmail-smtp-limits-');
    const file = join(dir, 'serve.json');
    await writeFile(file, JSON.stringify({ smtpSessionTimeoutMs: 120_000, smtpDataTimeoutMs: 60_000 }));
    const config = defaultServerConfig({});
    applyConfigFile(config, file);
    expect(config).toMatchObject({ smtpSessionTimeoutMs: 120_000, smtpDataTimeoutMs: 60_000 });
    await writeFile(file, JSON.stringify({ smtpDataTimeoutMs: 10 }));
    expect(() => applyConfigFile(defaultServerConfig({}), file)).toThrow(
      /smtpDataTimeoutMs: expected a whole number from 1000 to/,
    );
  });
});
