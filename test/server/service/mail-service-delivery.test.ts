/**
 * Delivery through the mail service: parsing, several recipients, aliases, inbox limit, malformed MIME,
 * hostile fixtures kept byte for byte, a real storage failure (storage_unavailable, then recovery), and
 * watchInbox, the news of stored mail the app's in-process service gives.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/server/service/service-types';
import { compose, serviceMaker, T0 } from '../service-fixture';
import { HOSTILE_DIR } from '../../harness/fixtures';

const svc = serviceMaker();

const client = { clientAddress: '127.0.0.1' };

describe('deliver and read', () => {
  it('stores sender, recipients, subject, text, HTML, headers, attachments and the raw bytes', async () => {
    const f = await svc({}, true);
    const s = await f.service.createSession({ ...client, prefix: 'ann' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const raw = await compose({
      to: ['"Ann" <ann@tempmail.test>', 'other@example.test'],
      cc: 'carbon@example.test',
      replyTo: 'reply@example.test',
      subject: 'Grüße \u{1F389}',
      text: 'Hello text',
      html: '<p>Hello <b>html</b></p>',
      attachments: [{ filename: 'pic.png', content: png, contentType: 'image/png' }],
    });
    expect(
      await f.service.deliver({ raw, recipients: ['ann@tempmail.test'], envelopeFrom: 'bounce@example.test' }),
    ).toEqual({
      delivered: 1,
    });
    f.advance(5_000);
    await f.service.deliver({
      raw: await compose({ to: s.email, subject: 'second', text: 'two' }),
      recipients: [s.email],
    });
    const list = await f.service.checkMail(s.token);
    expect(list.map((m) => m.subject)).toEqual(['second', 'Grüße \u{1F389}']); // newest first
    expect(list[1]).toEqual({
      id: 1,
      senderName: 'Ann Sender',
      senderEmail: 'ann@example.test',
      subject: 'Grüße \u{1F389}',
      receivedAt: new Date(T0),
      hasAttachments: true,
    });
    expect(list[0]?.hasAttachments).toBe(false);
    const m = await f.service.readMail(s.token, 1);
    expect(m.to).toEqual(['ann@tempmail.test', 'other@example.test']);
    expect(m.cc).toEqual(['carbon@example.test']);
    expect(m.text).toBe('Hello text');
    expect(m.html).toBe('<p>Hello <b>html</b></p>');
    expect(Object.keys(m.headers)).toEqual(['Date', 'Message-ID', 'From', 'To', 'Cc', 'Reply-To', 'Subject']);
    expect(m.headers.From).toBe('"Ann Sender" <ann@example.test>');
    expect(m.headers['Reply-To']).toBe('reply@example.test');
    expect(m.headers.Subject).toBe('Grüße \u{1F389}');
    expect(m.attachments).toEqual([{ id: 1, filename: 'pic.png', contentType: 'image/png', size: png.length }]);
    const att = await f.service.attachment(s.token, 1, 1);
    expect(att.bytes.equals(png)).toBe(true);
    expect(att.meta).toEqual(m.attachments[0]);
    expect((await f.service.rawMessage(s.token, 1)).equals(raw)).toBe(true);
  });

  it('keeps html null for a text-only message and text null for an HTML-only one', async () => {
    const f = await svc();
    const s = await f.service.createSession(client);
    await f.service.deliver({ raw: await compose({ to: s.email, text: 'only text' }), recipients: [s.email] });
    await f.service.deliver({ raw: await compose({ to: s.email, html: '<i>only html</i>' }), recipients: [s.email] });
    const [textOnly, htmlOnly] = [await f.service.readMail(s.token, 1), await f.service.readMail(s.token, 2)];
    expect([textOnly.text, textOnly.html]).toEqual(['only text\n', null]);
    expect([htmlOnly.text, htmlOnly.html]).toEqual([null, '<i>only html</i>\n']);
  });

  it('answers not_found for unknown message and attachment ids, and deletes', async () => {
    const f = await svc();
    const s = await f.service.createSession(client);
    await f.service.deliver({ raw: await compose({ to: s.email, text: 'x' }), recipients: [s.email] });
    for (const op of [
      f.service.readMail(s.token, 2),
      f.service.rawMessage(s.token, 0),
      f.service.attachment(s.token, 1, 1),
    ]) {
      await expect(op).rejects.toMatchObject({ code: 'not_found', status: 404 });
    }
    await f.service.deleteMail(s.token, 1);
    await expect(f.service.deleteMail(s.token, 1)).rejects.toMatchObject({ code: 'not_found' });
    expect(await f.service.checkMail(s.token)).toEqual([]);
  });

  it('lands one copy in each live recipient, once per address however it is spelled', async () => {
    const f = await svc();
    const a = await f.service.createSession({ ...client, prefix: 'a' });
    const b = await f.service.createSession({ ...client, prefix: 'b', domainId: 2 });
    const alias = await f.service.createSession({ ...client, extmailId: 1, prefix: 'promo' });
    const expired = await f.service.createSession({ ...client, prefix: 'old' });
    await f.store.putSession({ ...(await f.store.findSessionByAddress('old@tempmail.test'))!, expiresAt: T0 });
    const raw = await compose({ to: 'a@tempmail.test', subject: 'to many', text: 'x' });
    const recipients = [
      'a@tempmail.test',
      'A@TEMPMAIL.TEST',
      'a+tag@tempmail.test',
      'b@inbox.test',
      'nobody@tempmail.test',
      'j.o.hn.doe+promo@Gmail.Test',
      alias.email,
      'old@tempmail.test',
      'x@elsewhere.test',
    ];
    expect(await f.service.deliver({ raw, recipients })).toEqual({ delivered: 3 });
    for (const s of [a, b, alias])
      expect((await f.service.checkMail(s.token)).map((m) => m.subject)).toEqual(['to many']);
    await expect(f.service.checkMail(expired.token)).rejects.toMatchObject({ code: 'session_expired' });
    expect(await f.service.deliver({ raw, recipients: ['nobody@tempmail.test'] })).toEqual({ delivered: 0 });
  });

  it('judges recipients: ok, alias ok, unknown, expired, full at the inbox limit', async () => {
    const f = await svc({ inboxLimit: 2 });
    const s = await f.service.createSession({ ...client, prefix: 'eve' });
    const alias = await f.service.createSession({ ...client, extmailId: 2, prefix: 'eve' });
    expect(await f.service.checkRecipient('EVE@tempmail.test')).toBe('ok');
    expect(await f.service.checkRecipient(alias.email.toUpperCase())).toBe('ok');
    expect(await f.service.checkRecipient('jane@mail.test')).toBe('unknown');
    expect(await f.service.checkRecipient('eve@inbox.test')).toBe('unknown');
    expect(await f.service.checkRecipient('eve@example.test')).toBe('unknown');
    expect(await f.service.checkRecipient('not an address')).toBe('unknown');
    for (let i = 0; i < 2; i++)
      await f.service.deliver({ raw: await compose({ to: s.email, text: `${i}` }), recipients: [s.email] });
    expect(await f.service.checkRecipient(s.email)).toBe('full');
    await f.service.deleteMail(s.token, 1);
    expect(await f.service.checkRecipient(s.email)).toBe('ok');
    f.advance(600_000);
    expect(await f.service.checkRecipient(s.email)).toBe('expired');
  });

  it('stores into the mailbox RCPT accepted: no second lookup, and an address that changed hands meanwhile does not reach its new holder', async () => {
    const f = await svc({ lifetimeSeconds: 60 });
    const old = await f.service.createSession({ ...client, prefix: 'ivy' });
    const rcpt = await f.service.recipient(old.email);
    expect(rcpt.verdict).toBe('ok');
    expect(rcpt.mailbox).toBeDefined();
    // Between RCPT and the end of DATA the session expires and the name is taken again.
    f.advance(61_000);
    const taken = await f.service.createSession({ ...client, prefix: 'ivy' });
    expect(taken.email).toBe(old.email);
    const raw = await compose({ to: old.email, subject: 'for the old holder', text: 'x' });
    expect(await f.service.deliver({ raw, recipients: [old.email], mailboxes: [rcpt.mailbox] })).toEqual({
      delivered: 0,
    });
    expect(await f.service.checkMail(taken.token)).toEqual([]);
    // Accepted for the new holder, it is the new holder's; without a mailbox the address is looked up.
    const now = await f.service.recipient(taken.email);
    expect(await f.service.deliver({ raw, recipients: [taken.email], mailboxes: [now.mailbox] })).toEqual({
      delivered: 1,
    });
    expect(await f.service.deliver({ raw, recipients: [taken.email] })).toEqual({ delivered: 1 });
    expect((await f.service.checkMail(taken.token)).map((m) => m.id)).toEqual([2, 1]);
    // Refused recipients have no mailbox.
    expect(await f.service.recipient('nobody@tempmail.test')).toEqual({ verdict: 'unknown' });
  });

  it('refuses a message over maxMessageBytes with too_large', async () => {
    const f = await svc({ maxMessageBytes: 1000 });
    const s = await f.service.createSession(client);
    const raw = Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), Buffer.alloc(1000, 0x61)]);
    await expect(f.service.deliver({ raw, recipients: [s.email] })).rejects.toMatchObject({
      code: 'too_large',
      status: 413,
    });
  });
});

describe('bulk delivery', () => {
  it('delivers 1,000 composed messages, ten at a time, to a file store, every one listed (npm run bench measures the cost per message)', async () => {
    const f = await svc({ inboxLimit: 2000 }, true);
    const s = await f.service.createSession(client);
    const raw = await compose({ to: s.email, subject: 'bulk', text: 'x'.repeat(2000), html: '<p>x</p>' });
    for (let i = 0; i < 100; i++) {
      await Promise.all(Array.from({ length: 10 }, () => f.service.deliver({ raw, recipients: [s.email] })));
    }
    expect(await f.service.checkMail(s.token)).toHaveLength(1000);
  }, 120_000);
});

const MALFORMED: Record<string, Buffer> = {
  empty: Buffer.alloc(0),
  'no headers, binary': Buffer.from([0, 1, 2, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 13, 10, 13, 10, 0x80]),
  'broken boundary': Buffer.from(
    'Subject: b\r\nContent-Type: multipart/mixed; boundary="zz"\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nhi\r\n--z',
  ),
  'header without colon': Buffer.from(`${'X'.repeat(100_000)}\r\nSubject: after\r\n\r\nbody`),
  'deep nesting': Buffer.from(
    `${Array.from({ length: 150 }, (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`).join(
      '',
    )}Content-Type: text/plain\r\n\r\ndeep\r\n`,
  ),
  'unknown charset': Buffer.from(
    'Subject: =?x-klingon?Q?qapla=27?=\r\nContent-Type: text/plain; charset=x-klingon\r\n\r\n\xff\xfe',
  ),
  'bad encodings': Buffer.from(
    'Subject: =?utf-8?B?####?=\r\nContent-Transfer-Encoding: base64\r\nContent-Type: text/plain\r\n\r\n!!!not base64!!!\r\n',
  ),
  'NUL everywhere': Buffer.from('Sub\0ject: a\0b\r\nFrom: \0 <\0@x>\r\n\r\n\0\0\0'),
};

describe('malformed MIME', () => {
  it.each(Object.entries(MALFORMED))('stores %s without crashing, raw bytes intact', async (_name, raw) => {
    const f = await svc();
    const s = await f.service.createSession(client);
    expect(await f.service.deliver({ raw, recipients: [s.email], envelopeFrom: 'env@example.test' })).toEqual({
      delivered: 1,
    });
    const [meta] = await f.service.checkMail(s.token);
    expect(typeof meta!.subject).toBe('string');
    expect(meta!.senderEmail).toBeTypeOf('string');
    const m = await f.service.readMail(s.token, 1);
    expect(m.text === null || typeof m.text === 'string').toBe(true);
    expect((await f.service.rawMessage(s.token, 1)).equals(raw)).toBe(true);
  });

  it('uses the envelope sender when the message has no From', async () => {
    const f = await svc();
    const s = await f.service.createSession(client);
    await f.service.deliver({
      raw: Buffer.from('Subject: x\r\n\r\nbody'),
      recipients: [s.email],
      envelopeFrom: 'env@example.test',
    });
    expect((await f.service.checkMail(s.token))[0]).toMatchObject({
      senderName: '',
      senderEmail: 'env@example.test',
      subject: 'x',
    });
  });
});

describe('hostile fixtures', () => {
  it('stores each byte-faithfully and keeps the hostile bytes in the parsed fields', async () => {
    const f = await svc({ inboxLimit: 100 }, true);
    const s = await f.service.createSession({ ...client, prefix: 'target' });
    const names = (await readdir(HOSTILE_DIR)).filter((n) => n.endsWith('.eml')).sort();
    expect(names.length).toBeGreaterThanOrEqual(5);
    const sent = new Map<string, Buffer>();
    for (const name of names) {
      const raw = Buffer.from(
        (await readFile(join(HOSTILE_DIR, name), 'latin1')).replaceAll('{TO}', s.email),
        'latin1',
      );
      sent.set(name, raw);
      expect(await f.service.deliver({ raw, recipients: [s.email] })).toEqual({ delivered: 1 });
    }
    for (const [i, name] of names.entries()) {
      expect((await f.service.rawMessage(s.token, i + 1)).equals(sent.get(name)!), name).toBe(true);
    }
    const read = async (prefix: string) =>
      f.service.readMail(s.token, names.findIndex((n) => n.startsWith(prefix)) + 1);
    expect((await read('01')).subject).toBe('Your code \u001b[2J\u001b[31mRED\u001b[0m inside');
    expect((await read('01')).text).toContain('\u001b[10;10H');
    expect((await read('02')).senderName).toBe('\u202eevil\u202c Bank');
    expect((await read('03')).text).toContain('\u001b[5m blinking \u001b[0m and a bell \u0007');
    expect((await read('04')).html).toContain('<script>alert(1)</script>');
    expect((await read('05')).subject).toBe('NUL\u0000 and DEL\u007f in subject');
    expect((await read('05')).text).toContain('abc\b\b\bXYZ');
    expect((await read('05')).text).toContain('\u007f');
  });
});

describe('storage failure', () => {
  it('rejects with storage_unavailable, reports it in health, and recovers after a good write', async () => {
    const f = await svc({}, true);
    const s = await f.service.createSession({ ...client, prefix: 'frank' });
    const raw = await compose({ to: s.email, text: 'x' });
    const msgDir = join(f.dataDir, 'messages', (await f.store.listSessions())[0]!.id);
    // Tests run as root, where chmod 0500 stops nothing: make the directory a file instead (ENOTDIR).
    await rm(msgDir, { recursive: true });
    await writeFile(msgDir, '');
    const err = await f.service.deliver({ raw, recipients: [s.email] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'storage_unavailable', status: 503 });
    // The answer never carries the reason (an errno, a path, a database's address): the log does.
    expect((err as Error).message).toBe('Mail storage is unavailable; try again later');
    expect(await f.service.health()).toMatchObject({
      ok: false,
      storage: 'failing',
      detail: 'ENOTDIR: not a directory',
    });
    expect(f.logs.join('\n')).toContain('storage failing: ENOTDIR');
    expect(await f.service.checkMail(s.token)).toEqual([]); // nothing half-stored
    // Still failing for creation when the sessions directory breaks too.
    const sessionsDir = join(f.dataDir, 'sessions');
    await rm(sessionsDir, { recursive: true });
    await writeFile(sessionsDir, '');
    await expect(f.service.createSession(client)).rejects.toMatchObject({ code: 'storage_unavailable' });
    // Repaired: the next write succeeds and health says so.
    await rm(sessionsDir);
    await mkdir(sessionsDir, { mode: 0o700 });
    await rm(msgDir);
    await mkdir(msgDir, { mode: 0o700 });
    expect(await f.service.deliver({ raw, recipients: [s.email] })).toEqual({ delivered: 1 });
    expect(await f.service.health()).toMatchObject({ ok: true, storage: 'ok' });
    expect((await f.service.health()).detail).toBeUndefined();
  });
});

describe('close', () => {
  it('closes the store: later calls answer storage_unavailable without marking storage failing', async () => {
    const f = await svc({}, true);
    const s = await f.service.createSession(client);
    await f.service.close();
    await expect(f.service.checkMail(s.token)).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: /shutting down/,
    });
    expect((await f.service.health()).storage).toBe('ok');
    await f.store.close(); // idempotent
  });
});

describe('watchInbox (the in-process news of new mail)', () => {
  it("tells each watcher of its own address's mail once it is stored, and stops when asked", async () => {
    const f = await svc({});
    const ann = await f.service.createSession({ ...client, prefix: 'ann' });
    const bob = await f.service.createSession({ ...client, prefix: 'bob' });
    const heard: string[] = [];
    const stopAnn = f.service.watchInbox(ann.token, () => heard.push('ann'));
    f.service.watchInbox(bob.token, () => heard.push('bob'));
    // A second watch of the same address, and one whose listener throws: the mail is stored all the same.
    const stopAgain = f.service.watchInbox(ann.token, () => {
      heard.push('ann again');
      throw new Error('a watcher that fails');
    });
    f.service.watchInbox('not-a-token', () => heard.push('nobody'));

    const raw = await compose({ to: ann.email, subject: 'one', text: '1' });
    // By the time deliver resolves (the SMTP side answers 250 then), the watchers have heard.
    expect(await f.service.deliver({ raw, recipients: [ann.email] })).toEqual({ delivered: 1 });
    expect(heard).toEqual(['ann', 'ann again']);
    expect((await f.service.checkMail(ann.token)).map((m) => m.subject)).toEqual(['one']);

    heard.length = 0;
    await f.service.deliver({
      raw: await compose({ to: [ann.email, bob.email], subject: 'two', text: '2' }),
      recipients: [ann.email, bob.email],
    });
    expect(heard.sort()).toEqual(['ann', 'ann again', 'bob']);

    heard.length = 0;
    stopAnn();
    stopAgain();
    stopAgain(); // twice is harmless
    await f.service.deliver({
      raw: await compose({ to: ann.email, subject: 'three', text: '3' }),
      recipients: [ann.email],
    });
    // Nobody is told of mail that was not stored (unknown address), nor after stopping.
    await f.service.deliver({
      raw: await compose({ to: 'nobody@tempmail.test', subject: 'four', text: '4' }),
      recipients: ['nobody@tempmail.test'],
    });
    expect(heard).toEqual([]);
  });

  it('a full inbox stores nothing and tells nobody', async () => {
    const f = await svc({});
    const s = await f.service.createSession({ ...client, prefix: 'full' });
    let heard = 0;
    f.service.watchInbox(s.token, () => heard++);
    for (let i = 0; i < 3; i++)
      await f.service.deliver({
        raw: await compose({ to: s.email, subject: `m${i}`, text: 'x' }),
        recipients: [s.email],
      });
    expect(heard).toBe(3);
    const refused = await f.service.deliver({
      raw: await compose({ to: s.email, subject: 'over', text: 'x' }),
      recipients: [s.email],
    });
    expect(refused.delivered).toBe(0);
    expect(heard).toBe(3);
  });
});
