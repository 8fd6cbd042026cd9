/**
 * What one message may hold, for every provider, over real HTTP (the mail.tm and Guerrilla Mail fakes, a
 * fixture server in the shapes of docs/server/http-api.md for tempmail): an address list keeps 200 addresses and says how
 * many more there were, a message keeps 1,000 attachments, the tempmail headers record 200 headers.
 * Before, each was kept whole: a 64 MiB answer of addresses became millions of strings in the viewer.
 */
import { describe, expect, it } from 'vitest';
import { createGuerrillaProvider } from '../../src/client/guerrilla/guerrilla-provider';
import { createMailtmProvider } from '../../src/client/mailtm/mailtm-provider';
import { createTempmailProvider } from '../../src/client/tempmail/tempmail-provider';
import { MAX_ADDRESSES, MAX_ATTACHMENTS } from '../../src/client/wire/wire-json';
import { startGuerrillaFake } from '../providers/guerrilla-fake';
import { startMailtmFake } from '../providers/mailtm-fake';
import { sendJson, startFixtureServer } from './fixture-server';
import { cleanupAfterEach } from '../harness/cleanup';

const cleanup = cleanupAfterEach();

const addresses = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@x.example`);

describe('what one message may hold', () => {
  it('mail.tm: Cc keeps 200 addresses and says how many more; 1,000 attachments', async () => {
    const fake = await startMailtmFake();
    cleanup.after(() => fake.close());
    const mt = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 });
    const session = await mt.createSession();
    const attachments = Array.from({ length: 1_500 }, (_, i) => ({
      filename: `f${i}.txt`,
      contentType: 'text/plain',
      content: Buffer.from('x'),
    }));
    const id = fake.deliver(session.email, { subject: 'many', text: 'x', cc: addresses(5_000), attachments });
    const m = await mt.readMessage(session, id);
    expect(m.cc).toHaveLength(MAX_ADDRESSES + 1);
    expect(m.cc.slice(0, 2)).toEqual(['r0@x.example', 'r1@x.example']);
    expect(m.cc.at(-1)).toBe('(4,800 more)');
    expect(m.attachments).toHaveLength(MAX_ATTACHMENTS);
    expect(m.attachments.at(-1)!.filename).toBe('f999.txt');
  });

  it('Guerrilla Mail: a mail_recipient string of 5,000 addresses is not split past 200', async () => {
    const fake = await startGuerrillaFake();
    cleanup.after(() => fake.close());
    const gm = createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0 });
    const session = await gm.createSession({ prefix: 'many' });
    const id = fake.deliver(session.email, { subject: 'many', body: 'x', to: addresses(5_000).join(', ') });
    const m = await gm.readMessage(session, String(id));
    expect(m.to).toHaveLength(MAX_ADDRESSES + 1);
    expect(m.to[199]).toBe('r199@x.example');
    expect(m.to.at(-1)).toBe('(4,800 more)');
  });

  it('tempmail: To keeps 200, attachments 1,000, the headers record 200', async () => {
    const srv = await startFixtureServer((_req, res) =>
      sendJson(res, 200, {
        status: 'success',
        message: {
          id: 1,
          subject: 'many',
          sender_email: 'a@x.test',
          received_at: '2026-01-01 10:00:00',
          body_text: 'x',
          to: addresses(5_000),
          cc: 'a@x.example, , b@x.example',
          attachments: Array.from({ length: 2_000 }, (_, i) => ({ id: i + 1, filename: `f${i}`, size: 1 })),
          headers: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`X-H${i}`, String(i)])),
        },
      }),
    );
    cleanup.after(() => srv.close());
    const m = await createTempmailProvider({ baseUrl: srv.baseUrl }).readMessage(
      { email: 'a@x.test', token: 'tok-bounds', expiresAt: null },
      '1',
    );
    expect(m.to).toHaveLength(MAX_ADDRESSES + 1);
    expect(m.to.at(-1)).toBe('(4,800 more)');
    expect(m.cc).toEqual(['a@x.example', 'b@x.example']);
    expect(m.attachments).toHaveLength(MAX_ATTACHMENTS);
    expect(Object.keys(m.headers!)).toHaveLength(200);
    expect(m.headers!['X-H199']).toBe('199');
  });
});
