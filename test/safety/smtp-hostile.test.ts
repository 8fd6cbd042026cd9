/**
 * The reference service's SMTP side under abuse, beyond test/server/smtp/*.test.ts (issue 5): SIZE at and
 * just over the limit, unknown charsets and ISO-2022-JP (a charset whose own bytes are escape
 * sequences), raw 8-bit and NUL bytes in headers and body, a multi-megabyte header line, thousands of
 * MIME parts, an unclosed boundary, more connections than allowed, a slow but steady sender, and relay
 * attempts in every address form. Each ends with the service answering, mail read back terminal-safe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import type { Message } from '../../src/model/mail-types';
import { call } from '../harness/http';
import { startTestService, type TestService } from '../harness/service';
import { openSmtp, type SmtpDialog } from '../harness/smtp-dialog';
import { waitFor } from '../harness/wait';
import { firstUnsafe } from './payloads';
import { dataBlock, sendRawBatch } from './send';

const LIMIT = 256 * 1024;
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ maxMessageBytes: LIMIT, createPerMinute: 100_000, smtpSocketTimeoutMs: 5000 });
});
afterAll(() => svc?.close());

async function box() {
  return createApi({ baseUrl: svc.baseUrl, retries: 0 }).createSession();
}

/** Sends `raw` and reads the one message back through the real client; checks it is terminal-safe. */
async function roundTrip(raw: string | Buffer): Promise<Message & { token: string }> {
  const b = await box();
  await sendRawBatch(svc, b.email, [Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'latin1')]);
  const api = createApi({ baseUrl: svc.baseUrl, retries: 0 });
  const [m] = await api.checkMail(b.token);
  const message = await api.readMail(b.token, m!.id);
  for (const s of [
    message.subject,
    message.senderName,
    message.senderEmail,
    message.bodyText ?? '',
    message.bodyHtml ?? '',
  ]) {
    expect(firstUnsafe(s)).toBeNull();
  }
  return { ...message, token: b.token };
}

async function ehlo(): Promise<SmtpDialog> {
  const c = await openSmtp(svc);
  expect(await c.command('EHLO abuse.test')).toMatch(/^250/);
  return c;
}

describe('SMTP under abuse', () => {
  it('SIZE exactly at the limit is taken, one byte over is 552; DATA the same', async () => {
    const b = await box();
    const c = await ehlo();
    expect(await c.command(`MAIL FROM:<a@example.org> SIZE=${LIMIT}`)).toMatch(/^250/);
    await c.command('RSET');
    expect(await c.command(`MAIL FROM:<a@example.org> SIZE=${LIMIT + 1}`)).toMatch(/^552 /);
    const head = `From: a@example.org\r\nTo: ${b.email}\r\nSubject: edge\r\n\r\n`;
    for (const [size, code] of [
      [LIMIT, '250'],
      [LIMIT + 1, '552'],
    ] as const) {
      expect(await c.command('MAIL FROM:<a@example.org>')).toMatch(/^250/);
      expect(await c.command(`RCPT TO:<${b.email}>`)).toMatch(/^250/);
      expect(await c.command('DATA')).toMatch(/^354/);
      c.write(dataBlock(Buffer.from(`${head}${'x'.repeat(size - head.length - 2)}\r\n`)));
      expect(await c.reply()).toMatch(new RegExp(`^${code}`));
    }
    await c.command('QUIT');
  });

  it('unknown charsets are read as best it can, never a crash', async () => {
    const m = await roundTrip(
      'From: =?x-klingon?Q?Qapla=E9?= <k@example.org>\r\nSubject: =?x-unknown?B?Y2Fmw6k=?= and =?utf-8?Q?caf=C3=A9?=\r\n' +
        'Content-Type: text/plain; charset="x-no-such-charset"\r\nContent-Transfer-Encoding: 8bit\r\n\r\nbody \xe9\xe8 bytes\r\n',
    );
    expect(m.subject).toContain('café');
    expect(m.bodyText).toContain('body');
  });

  it('ISO-2022-JP, whose text is ESC sequences, is decoded to Japanese, not shown or stripped raw', async () => {
    // "テスト" in ISO-2022-JP: ESC $ B %F%9%H ESC ( B
    const jis = '\x1b$B%F%9%H\x1b(B';
    const m = await roundTrip(
      `From: a@example.org\r\nSubject: =?ISO-2022-JP?B?${Buffer.from(jis, 'latin1').toString('base64')}?=\r\n` +
        `Content-Type: text/plain; charset=ISO-2022-JP\r\nContent-Transfer-Encoding: 7bit\r\n\r\n${jis} body\r\n`,
    );
    expect(m.subject).toBe('テスト');
    expect(m.bodyText).toContain('テスト body');
  });

  it('raw 8-bit and NUL bytes in headers and body: stored byte for byte, shown safe', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        'From: Ren\xe9 \x00Nul <r@example.org>\r\nSubject: caf\xe9 \x00 \xff\xfe \xc3\x28 end\r\n\r\n',
        'latin1',
      ),
      Buffer.from([0x62, 0x00, 0x80, 0x9b, 0x33, 0x31, 0x6d, 0xff, 0x0d, 0x0a]),
    ]);
    const m = await roundTrip(raw);
    expect(m.subject).toMatch(/caf.*end/);
    const stored = await call(svc.baseUrl, '/raw-mail', { query: { token: m.token, id: m.id } });
    expect(stored.bytes.equals(raw)).toBe(true);
  });

  it('a 3 MB header line and 5,000 MIME parts are stored byte for byte without stopping the service', async () => {
    const big = await startTestService({ maxMessageBytes: 8 * 1024 * 1024 });
    try {
      const b = await createApi({ baseUrl: big.baseUrl }).createSession();
      const longHeader = `From: a@example.org\r\nX-Long: ${'h'.repeat(3 * 1024 * 1024)}\r\nSubject: long header\r\n\r\nbody\r\n`;
      const parts = Array.from({ length: 5000 }, (_, i) => `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join(
        '',
      );
      const manyParts = `From: a@example.org\r\nSubject: many parts\r\nContent-Type: multipart/mixed; boundary=p\r\n\r\n${parts}--p--\r\n`;
      const unclosed =
        'From: a@example.org\r\nSubject: unclosed\r\nContent-Type: multipart/mixed; boundary=never\r\n\r\n--never\r\nContent-Type: text/plain\r\n\r\nopen part\r\n';
      const sent = [longHeader, manyParts, unclosed].map((s) => Buffer.from(s));
      await sendRawBatch(big, b.email, sent);
      const list = (await call(big.baseUrl, '/check-mail', { query: { token: b.token } })).json!.messages as {
        id: number;
        subject: string;
      }[];
      expect(list.length).toBe(3);
      expect(list.map((m) => m.subject)).toContain('unclosed');
      // mailparser gives up past 1 MB of header or ~1,000 parts; the service then keeps best-effort
      // fields (read from the top-level header: test/server/mail/mime.test.ts) and the raw message, served intact.
      const stored = [];
      for (const m of list)
        stored.push((await call(big.baseUrl, '/raw-mail', { query: { token: b.token, id: m.id } })).bytes);
      const bySize = (a: Buffer, z: Buffer) => a.length - z.length;
      expect(stored.sort(bySize).map((x, i) => x.equals(sent.sort(bySize)[i]!))).toEqual([true, true, true]);
      expect((await call(big.baseUrl, '/health')).status).toBe(200);
    } finally {
      await big.close();
    }
  }, 60_000);

  it('more connections than allowed (200) get 421; the service keeps serving', async () => {
    const open: SmtpDialog[] = [];
    try {
      // All at once: one after another would take longer than the idle timeout that frees them.
      open.push(...(await Promise.all(Array.from({ length: 200 }, () => openSmtp(svc)))));
      const extra = await openSmtp(svc).then(
        (c) => c.greeting,
        (e: Error) => e.message,
      );
      expect(extra).toMatch(/^421/);
    } finally {
      for (const c of open) c.destroy();
    }
    const b = await box();
    await waitFor(
      async () =>
        await sendRawBatch(svc, b.email, [Buffer.from('Subject: after the crowd\r\n\r\nx\r\n')]).then(() => true),
      { timeoutMs: 10_000 },
    );
  }, 60_000);

  it('a slow but steady sender (a chunk every 100 ms) gets its 250', async () => {
    const b = await box();
    const c = await ehlo();
    await c.command('MAIL FROM:<slow@example.org>');
    await c.command(`RCPT TO:<${b.email}>`);
    expect(await c.command('DATA')).toMatch(/^354/);
    const body = dataBlock(Buffer.from(`Subject: slow\r\n\r\n${'line of text\r\n'.repeat(40)}`));
    for (let i = 0; i < body.length; i += 40) {
      c.write(body.subarray(i, i + 40));
      await new Promise((r) => setTimeout(r, 100)); // the sender's pace is the test input, not a wait
    }
    expect(await c.reply()).toMatch(/^250/);
    await c.command('QUIT');
  }, 30_000);

  it('is no open relay, whatever the address form', async () => {
    const c = await ehlo();
    expect(await c.command('MAIL FROM:<a@example.org>')).toMatch(/^250/);
    const forms = [
      'victim@example.com',
      'victim@example.com.',
      'victim%example.com@tempmail.test',
      '"victim@example.com"@tempmail.test',
      '@tempmail.test:victim@example.com',
      'victim@[127.0.0.1]',
      'victim@tempmail.test.evil.example',
      'example.com!victim@tempmail.test',
      'victim@example.com@tempmail.test',
      'postmaster',
      'victim@EXAMPLE.COM',
    ];
    for (const rcpt of forms) expect(await c.command(`RCPT TO:<${rcpt}>`), rcpt).toMatch(/^5\d\d/);
    // Nothing was accepted, so DATA has no recipient to go to.
    expect(await c.command('DATA')).toMatch(/^503/);
    await c.command('QUIT');
  });
});
