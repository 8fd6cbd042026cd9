/**
 * SMTP intake end to end: nodemailer (or a bare socket) over loopback into the real service, read back
 * through the real HTTP routes. Refusals are checked by their SMTP codes.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newSession } from '../../harness/http';
import { sendMail, sendRaw, startTestService, type TestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { HOSTILE_DIR } from '../../harness/fixtures';

const FIXTURES = HOSTILE_DIR;

let svc: TestService;
let now = Date.UTC(2030, 5, 1, 8, 0, 0);

beforeAll(async () => {
  svc = await startTestService(
    {
      maxRecipients: 3,
      inboxLimit: 5,
      maxMessageBytes: 64 * 1024,
      createPerMinute: 10_000,
      extmailAccounts: [{ email: 'john.doe@gmail.com', dotInsensitive: true }],
    },
    { clock: () => now },
  );
});
afterAll(() => svc?.close());

const session = (target: TestService = svc) => newSession(target.baseUrl);

async function inbox(token: string, target: TestService = svc): Promise<{ id: number; subject: string }[]> {
  const res = await call(target.baseUrl, '/check-mail', { query: { token } });
  expect(res.status).toBe(200);
  return res.json!.messages;
}

/** nodemailer rejects with the SMTP reply on the error; this returns it. */
async function refusal(promise: Promise<unknown>): Promise<{ responseCode: number; response: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { responseCode: number; response: string },
  );
  expect(error, 'expected the service to refuse').toBeDefined();
  return error!;
}

describe('delivery', () => {
  it('stores a text message, an HTML message and an attachment whose bytes come back intact', async () => {
    const s = await session();
    const bytes = randomBytes(3000);
    await sendMail(svc, { from: 'Ann Example <ann@example.org>', to: s.email, subject: 'plain', text: 'hello there' });
    await sendMail(svc, { to: s.email, subject: 'rich', html: '<h1>Hi</h1><p>rich <b>text</b></p>' });
    const info = await sendMail(svc, {
      to: s.email,
      subject: 'with file',
      text: 'see attached',
      attachments: [{ filename: 'data "1".bin', content: bytes, contentType: 'application/x-custom' }],
    });
    expect(info.response).toMatch(/^250 /);

    const list = await inbox(s.token);
    expect(list.map((m) => m.subject)).toEqual(['with file', 'rich', 'plain']);
    const plain = (await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: list[2]!.id } })).json!.message;
    expect(plain).toMatchObject({ sender_name: 'Ann Example', sender_email: 'ann@example.org', body_html: null });
    expect(plain.body_text).toContain('hello there');
    const rich = (await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: list[1]!.id } })).json!.message;
    expect(rich.body_html).toContain('<b>text</b>');

    const withFile = (await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: list[0]!.id } })).json!
      .message;
    expect(withFile.attachments).toEqual([
      { id: expect.any(Number), filename: 'data "1".bin', content_type: 'application/x-custom', size: 3000 },
    ]);
    const file = await call(svc.baseUrl, '/attachment', {
      query: { token: s.token, id: list[0]!.id, attachment_id: withFile.attachments[0].id },
    });
    expect(file.status).toBe(200);
    expect(file.bytes.equals(bytes)).toBe(true);
    expect(file.headers.get('content-type')).toBe('application/x-custom');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-disposition')).toMatch(
      /^attachment; filename="data _1_.bin"; filename\*=UTF-8''data%20%221%22.bin$/,
    );
    const missing = await call(svc.baseUrl, '/attachment', {
      query: { token: s.token, id: list[0]!.id, attachment_id: 99 },
    });
    expect(missing.status).toBe(404);
  });

  it('delivers one message to every live recipient (to and cc), once each', async () => {
    const [a, b] = [await session(), await session()];
    const info = await sendMail(svc, {
      to: [a.email, a.email.toUpperCase()],
      cc: b.email,
      subject: 'to both',
      text: 'x',
    });
    expect(info.accepted.length).toBeGreaterThanOrEqual(2);
    expect((await inbox(a.token)).map((m) => m.subject)).toEqual(['to both']);
    expect((await inbox(b.token)).map((m) => m.subject)).toEqual(['to both']);
  });

  it('serves the raw message byte for byte, hostile fixtures included', async () => {
    const s = await session();
    const files = readdirSync(FIXTURES)
      .filter((f) => f.endsWith('.eml'))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    const sent = files.map((f) =>
      Buffer.from(readFileSync(join(FIXTURES, f)).toString('latin1').replaceAll('{TO}', s.email), 'latin1'),
    );
    for (const raw of sent) await sendRaw(svc, s.email, raw);
    const list = (await inbox(s.token)).reverse(); // oldest first, the order sent
    expect(list.length).toBe(sent.length);
    for (const [i, m] of list.entries()) {
      const res = await call(svc.baseUrl, '/raw-mail', { query: { token: s.token, id: m.id } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('message/rfc822');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="message-\d+\.eml"/);
      // nodemailer ends a raw message with CRLF when it lacks one; compare what was on the wire.
      const expected =
        sent[i]!.subarray(-2).toString() === '\r\n' || sent[i]!.subarray(-1).toString() === '\n'
          ? sent[i]!
          : Buffer.concat([sent[i]!, Buffer.from('\r\n')]);
      expect(res.bytes.equals(expected), files[i]).toBe(true);
    }
  });

  it('survives malformed MIME: broken boundaries, NUL and 8-bit bytes', async () => {
    const s = await session();
    const raw = Buffer.concat([
      Buffer.from(
        `From: =?bogus?Q?x?= <a@b>\r\nTo: ${s.email}\r\nSubject: broken \xff\xfe\r\nContent-Type: multipart/mixed; boundary="zz"\r\n\r\n`,
        'latin1',
      ),
      Buffer.from(
        '--zz\r\nContent-Type: text/plain; charset=x-unknown\r\n\r\nbody \x00 nul\r\n--zz\r\nContent-Type: multipart/alternative; boundary=\r\n\r\n',
        'latin1',
      ),
      Buffer.from('\r\n'.repeat(3)),
    ]);
    await sendRaw(svc, s.email, raw);
    const [m] = await inbox(s.token);
    expect(m).toBeDefined();
    expect((await call(svc.baseUrl, '/read-mail', { query: { token: s.token, id: m!.id } })).status).toBe(200);
  });
  it('delivers to an external-mail alias and its dot variants', async () => {
    const alias = (await call(svc.baseUrl, '/create-session', { form: { use_extmail: 1 } })).json as {
      email: string;
      token: string;
    };
    // A dot-insensitive account may hand out a dot variant of its name (joh.ndoe+tag@...).
    expect(alias.email.replace(/\./g, '')).toMatch(/^johndoe\+[^@]+@gmailcom$/);
    const tag = alias.email.slice(alias.email.indexOf('+'), alias.email.indexOf('@'));
    await sendMail(svc, { to: alias.email, subject: 'as given', text: 'x' });
    await sendMail(svc, { to: `j.o.h.n.doe${tag}@GMAIL.com`, subject: 'dot variant', text: 'x' });
    expect((await inbox(alias.token)).map((m) => m.subject)).toEqual(['dot variant', 'as given']);
    // An alias nobody holds is an unknown mailbox; another name at the provider is somebody else's.
    expect((await refusal(sendMail(svc, { to: 'john.doe+nobody-holds-this@gmail.com', text: 'x' }))).response).toMatch(
      /^550 5\.1\.1/,
    );
    expect((await refusal(sendMail(svc, { to: 'someone.else@gmail.com', text: 'x' }))).response).toMatch(
      /^550 5\.7\.1/,
    );
  });
});

describe('refusals', () => {
  it('refuses an unknown mailbox with 550 5.1.1 and a foreign domain with 550 5.7.1 (no relay)', async () => {
    const unknown = await refusal(sendMail(svc, { to: 'nobody-here@tempmail.test', text: 'x' }));
    expect(unknown.responseCode).toBe(550);
    expect(unknown.response).toMatch(/^550 5\.1\.1/);
    const relay = await refusal(sendMail(svc, { to: 'someone@example.com', text: 'x' }));
    expect(relay.responseCode).toBe(550);
    expect(relay.response).toMatch(/^550 5\.7\.1/);
    // A mixed list: the live one gets it, the unknown one is reported rejected.
    const s = await session();
    const info = await sendMail(svc, { to: [s.email, 'ghost@inbox.test'], subject: 'mixed', text: 'x' });
    expect(info.rejected).toEqual(['ghost@inbox.test']);
    expect((await inbox(s.token)).length).toBe(1);
  });

  it('refuses an expired mailbox with 550', async () => {
    const s = await session();
    now += 2 * 3600_000;
    const expired = await refusal(sendMail(svc, { to: s.email, text: 'late' }));
    expect(expired.responseCode).toBe(550);
    expect(expired.response).toMatch(/expired/i);
  });

  it('refuses an oversize message with 552 5.3.4 and takes one at the limit', async () => {
    const s = await session();
    const head = `From: a@example.org\r\nTo: ${s.email}\r\nSubject: big\r\n\r\n`;
    const fill = (total: number) => `${head}${'x'.repeat(total - head.length - 2)}\r\n`;
    const over = await refusal(sendRaw(svc, s.email, fill(64 * 1024 + 1)));
    expect(over.responseCode).toBe(552);
    expect(over.response).toMatch(/5\.3\.4/);
    await sendRaw(svc, s.email, fill(64 * 1024));
    expect((await inbox(s.token)).length).toBe(1);
  });

  it('refuses a SIZE declared over the limit in MAIL FROM with 552 5.3.4, like an oversize DATA, and goes on', async () => {
    const s = await session();
    const c = await openSmtp(svc);
    await c.command('EHLO test.local');
    // smtp-server refuses this one itself, before our handlers see it; it must read like ours.
    expect(await c.command(`MAIL FROM:<a@example.org> SIZE=${64 * 1024 + 1}`)).toBe(
      `552 5.3.4 Message too big (limit ${64 * 1024} bytes)`,
    );
    expect(await c.command(`MAIL FROM:<a@example.org> SIZE=${64 * 1024}`)).toMatch(/^250 /);
    expect(await c.command(`RCPT TO:<${s.email}>`)).toMatch(/^250 /);
    await c.command('QUIT');
  });

  it('refuses recipients past the limit with 452 4.5.3 and a full inbox with 452 4.2.2', async () => {
    const live = [await session(), await session(), await session(), await session()];
    const info = await sendMail(svc, { to: live.map((s) => s.email), subject: 'many', text: 'x' });
    expect(info.accepted.length).toBe(3);
    expect(info.rejected).toEqual([live[3]!.email]);
    const tooMany = (info as unknown as { rejectedErrors: { responseCode: number; response: string }[] })
      .rejectedErrors[0]!;
    expect(tooMany.responseCode).toBe(452);
    expect(tooMany.response).toMatch(/4\.5\.3/);

    const full = await session();
    for (let i = 0; i < 5; i++) await sendMail(svc, { to: full.email, subject: `n${i}`, text: 'x' });
    const refused = await refusal(sendMail(svc, { to: full.email, text: 'one too many' }));
    expect(refused.responseCode).toBe(452);
    expect(refused.response).toMatch(/4\.2\.2/);
  });

  it('offers neither AUTH nor STARTTLS, advertises SIZE, and drops a half-sent message', async () => {
    const s = await session();
    const c = await openSmtp(svc);
    expect(c.greeting).toMatch(/^220 /);
    const ehlo = await c.command('EHLO test.local');
    expect(ehlo).toContain(`SIZE ${64 * 1024}`);
    expect(ehlo).not.toMatch(/AUTH|STARTTLS/);
    expect(await c.command('MAIL FROM:<a@example.org> SIZE=999999')).toMatch(/^552 5\.3\.4 /);
    expect(await c.command('MAIL FROM:<a@example.org>')).toMatch(/^250 /);
    expect(await c.command(`RCPT TO:<${s.email}>`)).toMatch(/^250 /);
    expect(await c.command('DATA')).toMatch(/^354 /);
    c.write(`Subject: half\r\n\r\nonly half of it`);
    c.destroy();
    await c.closed;
    // The service is fine, and nothing was stored for the message that never ended.
    const c2 = await openSmtp(svc);
    expect(await c2.command('NOOP')).toMatch(/^250 /);
    await c2.command('QUIT');
    expect(await inbox(s.token)).toEqual([]);
  });

  it('takes many connections at once', async () => {
    // One client (127.0.0.1) with 25 connections: more than its own share of the slots (a tenth) allows.
    const s = await startTestService({ inboxLimit: 100, smtpConnectionsPerClient: 0 });
    try {
      const box = await session(s);
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) => sendMail(s, { to: box.email, subject: `p${i}`, text: 'x' })),
      );
      expect(results.every((r) => r.response.startsWith('250'))).toBe(true);
      expect((await inbox(box.token, s)).length).toBe(25);
    } finally {
      await s.close();
    }
  });
});

describe('storage failure', () => {
  it('answers 451 4.3.0 (never 250) when the store cannot write, and /health says so', async () => {
    const s = await startTestService();
    try {
      const box = await session(s);
      await sendMail(s, { to: box.email, subject: 'before', text: 'x' });
      // A real failure, not a mock: the messages directory becomes a plain file (works as root too).
      await rm(join(s.dataDir, 'messages'), { recursive: true, force: true });
      await writeFile(join(s.dataDir, 'messages'), 'not a directory');
      const refused = await refusal(sendMail(s, { to: box.email, subject: 'after', text: 'x' }));
      expect(refused.responseCode).toBe(451);
      expect(refused.response).toMatch(/^451 4\.3\.0/);
      const health = await call(s.baseUrl, '/health');
      expect(health.status).toBe(503);
      // Only the word: the reason (ENOTDIR, a path) is the log's.
      expect(health.json).toEqual({ status: 'unavailable' });
      expect(s.logs.join('\n')).toMatch(/storage failing: ENOTDIR/);
    } finally {
      await s.close();
    }
  });
});
