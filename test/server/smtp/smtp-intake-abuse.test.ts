/**
 * SMTP intake under abuse (issue 5, the cheap part): odd MIME, endless headers, garbage commands, an
 * over-long line, a sender that goes quiet, more connections than the cap. Each case ends with the service
 * still answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newSession, type JsonBody } from '../../harness/http';
import { sendRaw, startTestService, type TestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ smtpSocketTimeoutMs: 1500 });
});
afterAll(() => svc?.close());

const box = () => newSession(svc.baseUrl);

async function stillServing(): Promise<void> {
  const c = await openSmtp(svc);
  expect(await c.command('EHLO after.test')).toMatch(/^250/);
  await c.command('QUIT');
  expect((await call(svc.baseUrl, '/health')).status).toBe(200);
}

async function readBack(token: string): Promise<JsonBody> {
  const list = (await call(svc.baseUrl, '/check-mail', { query: { token } })).json!.messages as { id: number }[];
  expect(list.length).toBe(1);
  const read = await call(svc.baseUrl, '/read-mail', { query: { token, id: list[0]!.id } });
  expect(read.status).toBe(200);
  return read.json!.message;
}

describe('SMTP under abuse', () => {
  it('stores a message nested 150 multiparts deep', async () => {
    const b = await box();
    let body = 'Content-Type: text/plain\r\n\r\ndeep inside\r\n';
    for (let i = 0; i < 150; i++)
      body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
    await sendRaw(
      svc,
      b.email,
      `From: a@example.org\r\nTo: ${b.email}\r\nSubject: deep\r\nMIME-Version: 1.0\r\n${body}`,
    );
    await readBack(b.token);
    await stillServing();
  });

  it('stores a message with 20,000 header lines', async () => {
    const b = await box();
    const headers = Array.from({ length: 20_000 }, (_, i) => `X-Filler-${i}: ${'v'.repeat(20)}`).join('\r\n');
    await sendRaw(
      svc,
      b.email,
      `From: a@example.org\r\nTo: ${b.email}\r\nSubject: many headers\r\n${headers}\r\n\r\nbody\r\n`,
    );
    expect((await readBack(b.token)).subject).toBe('many headers');
    await stillServing();
  });

  it('drops a client that sends garbage, NUL bytes or an over-long line, and keeps serving', async () => {
    const garbage = await openSmtp(svc);
    let last = '';
    for (let i = 0; i < 12 && !/^421/.test(last); i++)
      last = await garbage.command(`XYZZY${i} \u0000\u0001\u00ff`).catch(() => '421 closed');
    expect(last).toMatch(/^421/);
    await garbage.closed;

    const long = await openSmtp(svc);
    await long.command('EHLO long.test');
    const answer = await long.command(`MAIL FROM:<${'a'.repeat(40_000)}@example.org>`).catch(() => '421 closed');
    expect(answer).toMatch(/^[45]\d\d/);
    long.destroy();
    await stillServing();
  });

  it('hangs up on a sender that goes quiet (socket timeout), mid-command or mid-DATA', async () => {
    const b = await box();
    const quiet = await openSmtp(svc);
    await quiet.command('EHLO quiet.test');
    await quiet.closed; // the server closes it after smtpSocketTimeoutMs
    const slow = await openSmtp(svc);
    await slow.command('EHLO slow.test');
    await slow.command('MAIL FROM:<a@example.org>');
    await slow.command(`RCPT TO:<${b.email}>`);
    await slow.command('DATA');
    slow.write('Subject: never finished\r\n\r\nstops here');
    await slow.closed;
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: b.token } })).json!.messages).toEqual([]);
    await stillServing();
  });

  it('holds 200 connections at once; the 201st hears 421 and is closed; one leaving makes room', async () => {
    // Its own service: the shared one drops idle connections after 1.5 s, before 200 are open. All 200
    // come from one address here, so the per-client share (a tenth) is off: this is the total.
    const many = await startTestService({ smtpConnectionsPerClient: 0 });
    const held: Awaited<ReturnType<typeof openSmtp>>[] = [];
    try {
      for (let i = 0; i < 200; i += 50) {
        held.push(...(await Promise.all(Array.from({ length: 50 }, () => openSmtp(many)))));
      }
      expect(held.every((c) => /^220 /.test(c.greeting))).toBe(true);
      const extra = await openSmtp(many);
      expect(extra.greeting).toMatch(/^421 .*Too many connected clients/);
      await extra.closed;
      // Said in the log (it used to be silent), and counted.
      expect(
        many.logs.some((l) =>
          l.startsWith('smtp refused a connection from 127.0.0.1: 421 4.3.2 Too many connected clients (200)'),
        ),
      ).toBe(true);
      expect(many.ops.stats().smtp.connectionsRefused).toEqual({ total: 1 });
      // The 200 are still served.
      expect(await held[199]!.command('NOOP')).toMatch(/^250 /);
      expect(await held[0]!.command('QUIT')).toMatch(/^221 /);
      await held[0]!.closed;
      // The server notices the leaving connection a moment after the client does: wait for the free slot,
      // then it takes a whole delivery.
      const next = await waitFor(
        async () => {
          const c = await openSmtp(many);
          if (/^220 /.test(c.greeting)) return c;
          await c.closed;
          return null;
        },
        { message: 'a free slot after one connection left' },
      );
      const b = await newSession(many.baseUrl);
      await next.command('EHLO room.test');
      expect(await next.command('MAIL FROM:<a@example.org>')).toMatch(/^250 /);
      expect(await next.command(`RCPT TO:<${b.email}>`)).toMatch(/^250 /);
      expect(await next.command('DATA')).toMatch(/^354 /);
      expect(await next.command(`Subject: room again\r\n\r\nhi\r\n.`)).toMatch(/^250 /);
      expect((await call(many.baseUrl, '/check-mail', { query: { token: b.token } })).json!.messages).toHaveLength(1);
      next.destroy();
    } finally {
      for (const c of held) c.destroy();
      await many.close();
    }
  }, 30_000);
});
