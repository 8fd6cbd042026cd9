/**
 * The guerrilla provider on hostile answers, against the Guerrilla Mail conformance fake over real HTTP:
 * a sender of thousands of spaces (its pattern backtracked about cubically: 4,000 took 7 s, 20,000 did
 * not end in 120 s, and the inbox froze with it) is read in one pass over a bounded piece of it; a
 * mail_id that is not a number costs only its own entry; the list stops at its page bound and says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listingNote } from '../../../src/client/wire/listing';
import { createGuerrillaProvider } from '../../../src/client/guerrilla/guerrilla-provider';
import { startGuerrillaFake, type GuerrillaFake, type GuerrillaFakeOptions } from '../../providers/guerrilla-fake';

let fake: GuerrillaFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(options: GuerrillaFakeOptions = {}) {
  fake = await startGuerrillaFake(options);
  const gm = createGuerrillaProvider({ baseUrl: fake.baseUrl, retries: 0 });
  const session = await gm.createSession({ prefix: 'hostile' });
  return { fake, gm, session };
}

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000);

describe('guerrilla provider on hostile answers', () => {
  it('a sender of 5,000 spaces and an x is read at once (the old pattern took minutes), list and message alike', async () => {
    const { fake, gm, session } = await setup();
    const id = fake.deliver(session.email, { from: `${' '.repeat(5_000)}x`, subject: 'spaces', body: 'x', at: at(1) });
    const [m] = await gm.listMessages(session);
    expect(m).toMatchObject({ id: String(id), senderName: '', senderEmail: 'x' });
    expect(await gm.readMessage(session, String(id))).toMatchObject({ senderName: '', senderEmail: 'x' });
  });

  it('a sender or subject of a megabyte is cut to what its field shows before anything reads it', async () => {
    const { fake, gm, session } = await setup();
    fake.deliver(session.email, {
      from: `"${'n'.repeat(500_000)}" <${'a'.repeat(500_000)}@x.example>`,
      subject: '&'.repeat(200_000),
      at: at(1),
    });
    fake.deliver(session.email, {
      from: `${' '.repeat(1_000_000)}"Name" <${'&lt;'.repeat(100_000)}>`,
      subject: 's',
      at: at(2),
    });
    const list = await gm.listMessages(session);
    expect(list).toHaveLength(2);
    for (const m of list) {
      expect(m.senderName.length).toBeLessThanOrEqual(256);
      expect(m.senderEmail.length).toBeLessThanOrEqual(512);
      expect(m.subject.length).toBeLessThanOrEqual(1000);
    }
    // Served as &amp; (the API escapes subjects), decoded within the cut: 999 ampersands and the ellipsis.
    expect(list[1]!.subject).toBe(`${'&'.repeat(999)}…`);
  });

  it('names, quotes and addresses as before: "Name" <a@b>, Name <a@b>, a bare address, a <a> b', async () => {
    const { fake, gm, session } = await setup();
    const senders = [
      '"Shop" <hello@shop.example>',
      'Bank  <otp@bank.example> ',
      'solo@x.example',
      'a <b> c',
      '<only@x.example>',
      'x <y>>',
    ];
    for (const [i, from] of senders.entries()) fake.deliver(session.email, { from, subject: String(i), at: at(i) });
    const list = (await gm.listMessages(session)).sort((a, b) => Number(a.subject) - Number(b.subject));
    expect(list.map((m) => [m.senderName, m.senderEmail])).toEqual([
      ['Shop', 'hello@shop.example'],
      ['Bank', 'otp@bank.example'],
      ['', 'solo@x.example'],
      ['', 'a <b> c'],
      ['', 'only@x.example'],
      ['', 'x <y>>'],
    ]);
  });

  it('a mail_id that is not a number (../x, a?b=c) is dropped and counted; the rest is listed', async () => {
    const { fake, gm, session } = await setup();
    const good = fake.deliver(session.email, { subject: 'good', at: at(1) });
    fake.deliver(session.email, { subject: 'dots', id: '../x', at: at(2) });
    fake.deliver(session.email, { subject: 'query', id: 'a?b=c', at: at(3) });
    const list = await gm.listMessages(session);
    expect(list.map((m) => m.id)).toEqual([String(good)]);
    expect(list.cut).toEqual({ unreadable: 2 });
  });

  it('reads at most 100 pages, and says so when the service has more', async () => {
    const { fake, gm, session } = await setup({ pageSize: 10 });
    for (let i = 0; i < 1_005; i++) fake.deliver(session.email, { subject: `m${i}`, at: at(i) });
    const list = await gm.listMessages(session);
    expect(list).toHaveLength(1_000);
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'pages', limit: 100 } });
    expect(list[0]!.subject).toBe('m1004');
    expect(listingNote(list.length, list.cut)).toBe(
      'The service lists more than these 1,000 messages (a listing stops at 100 pages).',
    );
  }, 60_000);
});
