/**
 * MIME parsing past mailparser's limits (~1 MB of header, ~1,000 parts): the message is still kept, and
 * From, To, Subject and Date are read from the raw header block itself, decoded as on the normal path.
 * Directly through parseMessage, then once end to end over real SMTP and the real HTTP routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMessage } from '../../../src/server/mail/mime';
import { FIELD_CAP } from '../../../src/server/mail/mime-fallback';
import { call, newSession } from '../../harness/http';
import { sendRaw, startTestService, type TestService } from '../../harness/service';

const CRLF = '\r\n';
/** A From folded over two lines with an encoded-word name, and a Q-encoded subject split in two words. */
const TOP =
  `From: =?UTF-8?B?${Buffer.from('Zoë Ünal').toString('base64')}?=${CRLF}\t<zoe@example.org>${CRLF}` +
  `To: ann@tempmail.test, "Bob B" <bob@tempmail.test>${CRLF}` +
  `Subject: =?UTF-8?Q?Caf=C3=A9_menu?=${CRLF} =?UTF-8?Q?_for_you?=${CRLF}` +
  `Date: Sat, 21 Nov 2026 10:00:00 +0000${CRLF}`;

/** 1.5 MB of header: many ordinary lines, then one long one, all before the fields that matter. */
function bigHeader(): Buffer {
  const filler = Array.from({ length: 5000 }, (_, i) => `X-Filler-${i}: ${'f'.repeat(200)}`).join(CRLF);
  const head = `Received: from a${CRLF}${filler}${CRLF}X-Long: ${'h'.repeat(500_000)}${CRLF}${TOP}`;
  expect(head.length).toBeGreaterThan(1.5 * 1024 * 1024);
  return Buffer.from(`${head}${CRLF}body after the big header${CRLF}`, 'utf8');
}

/** 5,000 MIME parts under an ordinary header. */
function manyParts(): Buffer {
  const parts = Array.from(
    { length: 5000 },
    (_, i) => `--p${CRLF}Content-Type: text/plain${CRLF}${CRLF}part ${i}${CRLF}`,
  ).join('');
  return Buffer.from(`${TOP}Content-Type: multipart/mixed; boundary=p${CRLF}${CRLF}${parts}--p--${CRLF}`, 'utf8');
}

describe("parseMessage past mailparser's limits", () => {
  for (const [name, make] of [
    ['a 1.5 MB header', bigHeader],
    ['5,000 MIME parts', manyParts],
  ] as const) {
    it(`keeps sender, subject, recipients and date of ${name}`, async () => {
      const fields = await parseMessage(make(), 'bounce@example.net');
      expect(fields).toMatchObject({
        senderName: 'Zoë Ünal',
        senderEmail: 'zoe@example.org',
        subject: 'Café menu for you',
      });
      expect(fields.to).toEqual(['ann@tempmail.test', 'bob@tempmail.test']);
      expect(fields.headers.Date).toBe('Sat, 21 Nov 2026 10:00:00 +0000');
      expect(fields.headers.Subject).toBe('Café menu for you');
      expect(fields.text).not.toBeNull();
    });
  }

  it('bounds what it reads: a 3 MB subject is cut, an absent From falls back to the envelope', async () => {
    const raw = Buffer.from(`Subject: ${'s'.repeat(3 * 1024 * 1024)}${CRLF}${CRLF}body${CRLF}`);
    const fields = await parseMessage(raw, 'bounce@example.net');
    expect(fields.senderEmail).toBe('bounce@example.net');
    expect(fields.subject).toMatch(/^s+$/);
    expect(fields.subject.length).toBeLessThanOrEqual(FIELD_CAP);
    expect(fields.subject.length).toBeGreaterThan(FIELD_CAP / 2);
    expect(fields.text).toBe(`body${CRLF}`);
  });
});

describe('over SMTP', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ maxMessageBytes: 4 * 1024 * 1024 });
  });
  afterAll(() => svc?.close());

  it('lists a message with a 1.5 MB header under its real sender and subject, raw kept byte for byte', async () => {
    const s = await newSession(svc.baseUrl);
    const raw = bigHeader();
    expect((await sendRaw(svc, s.email, raw)).response).toMatch(/^250 /);
    const [m] = (await call(svc.baseUrl, '/check-mail', { query: { token: s.token } })).json!.messages;
    expect(m).toMatchObject({ subject: 'Café menu for you', sender_name: 'Zoë Ünal', sender_email: 'zoe@example.org' });
    const stored = await call(svc.baseUrl, '/raw-mail', { query: { token: s.token, id: m.id } });
    expect(stored.bytes.equals(raw)).toBe(true);
  }, 30_000);
});
