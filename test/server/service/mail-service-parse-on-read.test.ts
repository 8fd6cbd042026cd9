/**
 * Plain mail is stored without its MIME parse and parsed when read (mail/quick-summary.ts): what a
 * reader gets is what the parse at delivery gave, on the memory and the file store, also after a
 * restart; mail with an attachment, and mail past PARSE_ON_READ_MAX, is parsed at delivery as before.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../../src/server/mail/mime';
import { PARSE_ON_READ_MAX } from '../../../src/server/mail/quick-summary';
import { openFileStore } from '../../../src/server/store/file/file-store';
import { createMailService } from '../../../src/server/service/mail-service';
import { compose, serviceMaker } from '../service-fixture';

const svc = serviceMaker();
const client = { clientAddress: '127.0.0.1' };

/** A plain notification as a mailer writes it (one text part, 8-bit UTF-8 body). */
function plain(to: string, body: string): Buffer {
  return Buffer.from(
    [
      'From: "Acme Shop" <acme-shop@example.org>',
      `To: <${to}>`,
      'Cc: Carol <carol@example.org>',
      'Subject: Your order has shipped',
      'Date: Thu, 01 Jan 2026 12:00:01 GMT',
      'Message-ID: <n-1@example.org>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      body,
    ].join('\r\n'),
    'utf8',
  );
}

describe.each([
  ['memory', false],
  ['file', true],
] as const)('parse on read, %s store', (_name, file) => {
  it('reads a plain message, and a text-and-HTML one, exactly as the parse at delivery would', async () => {
    const f = await svc({ inboxLimit: 10 }, file);
    const s = await f.service.createSession({ ...client, prefix: 'ann' });
    const raws = [
      plain(s.email, 'Hello,\r\n\r\nYour code is 482913. Grüße 🎉\r\n'),
      await compose({ to: s.email, subject: 'Both kinds', text: 'Code 123456', html: '<p>Code <b>123456</b></p>' }),
    ];
    for (const raw of raws) await f.service.deliver({ raw, recipients: [s.email], envelopeFrom: 'bounce@example.org' });
    for (const [i, raw] of raws.entries()) {
      const id = i + 1;
      // Stored unparsed: the path under test is the one taken.
      expect((await f.store.getMessage((await f.service.describeSession(s.token)).id, id))?.parseOnRead).toBe(true);
      const parsed = await parseMessage(raw, 'bounce@example.org');
      const m = await f.service.readMail(s.token, id);
      expect(m).toMatchObject({
        senderName: parsed.senderName,
        senderEmail: parsed.senderEmail,
        subject: parsed.subject,
        to: parsed.to,
        cc: parsed.cc,
        text: parsed.text,
        html: parsed.html,
        headers: parsed.headers,
        attachments: [],
        hasAttachments: false,
      });
      const listed = (await f.service.checkMail(s.token)).find((x) => x.id === id)!;
      expect(listed).toEqual({
        id,
        senderName: m.senderName,
        senderEmail: m.senderEmail,
        subject: m.subject,
        receivedAt: m.receivedAt,
        hasAttachments: false,
      });
    }
    expect((await f.service.readMail(s.token, 1)).text).toContain('482913. Grüße 🎉');
    expect((await f.service.readMail(s.token, 2)).html).toBe('<p>Code <b>123456</b></p>');
    await expect(f.service.attachment(s.token, 1, 1)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('parses at delivery mail with an attachment and mail past PARSE_ON_READ_MAX', async () => {
    const f = await svc({ inboxLimit: 10, maxMessageBytes: 4 * PARSE_ON_READ_MAX }, file);
    const s = await f.service.createSession({ ...client, prefix: 'bob' });
    const sessionId = (await f.service.describeSession(s.token)).id;
    const withFile = await compose({
      to: s.email,
      subject: 'Invoice',
      text: 'attached',
      attachments: [{ filename: 'a.txt', content: 'hi' }],
    });
    const large = plain(s.email, `${'long line of text '.repeat(PARSE_ON_READ_MAX / 16)}\r\n`);
    for (const raw of [withFile, large]) await f.service.deliver({ raw, recipients: [s.email] });
    expect((await f.store.getMessage(sessionId, 1))?.parseOnRead).toBeUndefined();
    expect((await f.store.getMessage(sessionId, 2))?.parseOnRead).toBeUndefined();
    expect((await f.service.attachment(s.token, 1, 1)).bytes.toString()).toBe('hi');
    expect((await f.service.readMail(s.token, 2)).text).toBe((await parseMessage(large)).text);
  });
});

it('reads a message stored unparsed after a restart of the file store', async () => {
  const f = await svc({ inboxLimit: 10 }, true);
  const s = await f.service.createSession({ ...client, prefix: 'cid' });
  const raw = plain(s.email, 'Code 777111\r\n');
  await f.service.deliver({ raw, recipients: [s.email] });
  const before = await f.service.readMail(s.token, 1);
  await f.store.close();
  const store = await openFileStore(f.config.dataDir);
  const again = createMailService({ store, config: f.config, clock: () => f.now() });
  try {
    expect(await again.readMail(s.token, 1)).toEqual(before);
    expect(before.text).toBe('Code 777111\n');
  } finally {
    await again.close();
  }
});
