/**
 * Concurrent deliveries share one memory budget (smtpInflightBytes): a message that does not fit while
 * others are in flight hears 451 4.3.1 (the sender keeps it and retries) instead of the service growing
 * until it falls over. Real SMTP: one sender holds part of a message in DATA, a second one's whole message
 * does not fit beside it; once the first is stored, the second's retry goes through.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';

const cleanup = cleanupAfterEach();

const line = `${'x'.repeat(998)}\r\n`; // 1000 bytes a line
const kb = (n: number) => line.repeat(n);

describe('the in-flight budget of SMTP deliveries', () => {
  it('answers 451 4.3.1 to a message that does not fit beside those in flight, and takes it once they are stored', async () => {
    const svc = cleanup.defer(
      await startTestService({ maxMessageBytes: 100_000, smtpInflightBytes: 150_000, smtpConnectionsPerClient: 0 }),
      (s) => s.close(),
    );
    const box = await newSession(svc.baseUrl);
    const open = async () => {
      const c = cleanup.defer(await openSmtp(svc), (d) => d.destroy());
      expect(await c.command('EHLO budget.test')).toMatch(/^250/);
      expect(await c.command('MAIL FROM:<big@example.org>')).toMatch(/^250/);
      expect(await c.command(`RCPT TO:<${box.email}>`)).toMatch(/^250/);
      expect(await c.command('DATA')).toMatch(/^354/);
      return c;
    };
    // 90 KB of the first message are in flight (no final dot yet). Its bytes were on the wire before
    // the second connection was even opened, so the service has read them by the second's 354.
    const first = await open();
    first.write(`Subject: first\r\n\r\n${kb(90)}`);
    const second = await open();
    second.write(`Subject: second\r\n\r\n${kb(90)}.\r\n`);
    expect(await second.reply()).toBe('451 4.3.1 Too much mail arriving at once, try again later');
    // A refused message leaves the connection usable, like any 4xx.
    expect(await second.command('RSET')).toMatch(/^250/);
    expect(
      svc.logs.some((l) =>
        /^smtp refused DATA \(\d+ bytes from big@example\.org for .+\): 451 4\.3\.1 Too much mail arriving at once, try again later \(150000 bytes of messages in flight at once\) \| client=127\.0\.0\.1 tls=no reason=over_budget$/.test(
          l,
        ),
      ),
    ).toBe(true);

    first.write('.\r\n');
    expect(await first.reply()).toMatch(/^250 2\.0\.0 Ok: stored/);
    // The first's share was given back: the retry fits, here through nodemailer as a real sender would.
    await sendMail(svc, { to: box.email, subject: 'second, retried', text: kb(90) });
    const list = await call(svc.baseUrl, '/check-mail', { query: { token: box.token } });
    expect(list.json?.messages.map((m: { subject: string }) => m.subject)).toEqual(['second, retried', 'first']);
  });

  it('gives the budget back for refused, oversize and abandoned messages: a full-size message still fits after each', async () => {
    const svc = cleanup.defer(
      await startTestService({
        maxMessageBytes: 100_000,
        smtpInflightBytes: 100_000,
        smtpSocketTimeoutMs: 1000,
        smtpConnectionsPerClient: 0,
      }),
      (s) => s.close(),
    );
    const box = await newSession(svc.baseUrl);
    // Oversize (552), then a sender that vanishes mid-DATA, then one that goes quiet (idle timeout).
    await expect(sendMail(svc, { to: box.email, subject: 'too big', text: kb(120) })).rejects.toMatchObject({
      responseCode: 552,
    });
    for (const end of ['destroy', 'quiet'] as const) {
      const c = await openSmtp(svc);
      await c.command('EHLO gone.test');
      await c.command('MAIL FROM:<gone@example.org>');
      await c.command(`RCPT TO:<${box.email}>`);
      await c.command('DATA');
      c.write(kb(60));
      if (end === 'destroy') c.destroy();
      await c.closed;
    }
    // 95 KB needs almost the whole budget: it fits only if every share above came back.
    await sendMail(svc, { to: box.email, subject: 'full size', text: kb(95) });
    const list = await call(svc.baseUrl, '/check-mail', { query: { token: box.token } });
    expect(list.json?.messages.map((m: { subject: string }) => m.subject)).toEqual(['full size']);
  });

  it('is never below one message of the size limit', async () => {
    const svc = cleanup.defer(
      await startTestService({ maxMessageBytes: 100_000, smtpInflightBytes: 1024, smtpConnectionsPerClient: 0 }),
      (s) => s.close(),
    );
    const box = await newSession(svc.baseUrl);
    await sendMail(svc, { to: box.email, subject: 'fits alone', text: kb(95) });
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json?.messages).toHaveLength(1);
  });
});
