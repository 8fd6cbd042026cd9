/**
 * What the viewer and the inbox need of mail.tm, against its conformance fake over real HTTP: the
 * listing says which messages were seen and which carry attachments, markRead sets `seen` with a JSON
 * merge patch (the fake refuses plain JSON with 415, as mail.tm does), and readSource is the message as
 * mail.tm received it, from its download URL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMailtmProvider } from '../../../src/client/mailtm/mailtm-provider';
import type { MailProvider } from '../../../src/client/client-types';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';

let fake: MailtmFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(): Promise<{ fake: MailtmFake; mt: MailProvider }> {
  fake = await startMailtmFake();
  return { fake, mt: createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 }) };
}

describe('mailtm provider: read state and sources', () => {
  it('lists seen and hasAttachments; markRead marks the message seen at mail.tm', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const plain = fake.deliver(s.email, { subject: 'Plain', text: 'x' });
    const filed = fake.deliver(s.email, {
      subject: 'Filed',
      text: 'y',
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') }],
    });
    let list = await mt.listMessages(s);
    expect(list.map((m) => [m.id, m.seen, m.hasAttachments])).toEqual(
      expect.arrayContaining([
        [plain, false, false],
        [filed, false, true],
      ]),
    );
    fake.log.length = 0;
    await mt.markRead!(s, plain);
    expect(fake.seen(plain)).toBe(true);
    expect(fake.seen(filed)).toBe(false);
    expect(fake.log).toEqual([
      { method: 'PATCH', path: `/messages/${plain}`, status: 200, bearer: true, at: expect.any(Number) },
    ]);
    list = await mt.listMessages(s);
    expect(list.find((m) => m.id === plain)?.seen).toBe(true);
  });

  it('readSource is the raw message, byte for byte, with a new token when the old one is refused', async () => {
    const { fake, mt } = await setup();
    const s = await mt.createSession();
    const id = fake.deliver(s.email, {
      from: { name: 'Ann', address: 'ann@example.org' },
      subject: 'Raw me',
      text: 'The body.',
    });
    fake.expireTokens();
    const source = await mt.readSource!(s, id);
    expect(source.kind).toBe('raw');
    const text = source.kind === 'raw' ? source.bytes.toString('utf8') : '';
    expect(text).toBe(
      `From: Ann <ann@example.org>\r\nTo: ${s.email}\r\nSubject: Raw me\r\nMessage-ID: <${id}@fake.mail.tm>\r\n\r\nThe body.\r\n`,
    );
    expect(fake.log.filter((l) => l.path === `/messages/${id}/download`).map((l) => l.status)).toContain(200);
  });
});
