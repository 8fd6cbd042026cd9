/**
 * mail.tm's listings under their bounds, against the conformance fake over real HTTP: a message id that
 * could change a URL costs only itself (dropped, counted, the rest listed); the message listing as a
 * whole keeps at most 10,000 messages, 50 pages and (here set low) its bytes, and says what it left out;
 * the domain list keeps 1,000 domains and reads nothing past them (it was quadratic in their number).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LISTING_LIMITS, listingNote } from '../../../src/client/wire/listing';
import { createMailtmProvider, type MailtmOptions } from '../../../src/client/mailtm/mailtm-provider';
import { startMailtmFake, type MailtmFake, type MailtmFakeOptions } from '../../providers/mailtm-fake';

let fake: MailtmFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(fakeOptions: MailtmFakeOptions = {}, options: Partial<MailtmOptions> = {}) {
  fake = await startMailtmFake(fakeOptions);
  const mt = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0, ...options });
  const session = await mt.createSession();
  return { fake, mt, session };
}

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000);

describe('mail.tm listings under their bounds', () => {
  it('a message id that could change a URL (../x, a?b=c) is dropped and counted; the rest is listed', async () => {
    const { fake, mt, session } = await setup();
    const good = fake.deliver(session.email, { subject: 'good one', at: at(1) });
    fake.deliver(session.email, { subject: 'dot dot', id: '../x', at: at(2) });
    fake.deliver(session.email, { subject: 'query', id: 'a?b=c', at: at(3) });
    const later = fake.deliver(session.email, { subject: 'good two', at: at(4) });
    const list = await mt.listMessages(session);
    expect(list.map((m) => m.id)).toEqual([later, good]);
    expect(list.cut).toEqual({ unreadable: 2 });
    expect(listingNote(list.length, list.cut)).toBe(
      "2 listed messages left out (no usable id in the service's answer).",
    );
  });

  it('keeps at most 10,000 messages however many a page holds, and says the service lists more', async () => {
    const { fake, mt, session } = await setup({ pageSize: 4_000 });
    for (let i = 0; i < 12_000; i++) fake.deliver(session.email, { subject: `m${i}`, at: at(i) });
    const list = await mt.listMessages(session);
    expect(list).toHaveLength(LISTING_LIMITS.maxItems);
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'items', limit: 10_000 } });
    // The newest 10,000 (mail.tm lists newest first), and the third page was never asked for.
    expect(list[0]!.subject).toBe('m11999');
    expect(list.at(-1)!.subject).toBe('m2000');
    expect(fake.log.filter((l) => l.path === '/messages')).toHaveLength(3);
    expect(listingNote(list.length, list.cut)).toBe(
      'The service lists more than these 10,000 messages (a listing stops at 10,000 messages).',
    );
  }, 60_000);

  it('reads at most 50 pages, and says so when the service has more', async () => {
    const { fake, mt, session } = await setup();
    for (let i = 0; i < 1_510; i++) fake.deliver(session.email, { subject: `m${i}`, at: at(i) });
    const list = await mt.listMessages(session);
    expect(list).toHaveLength(1_500);
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'pages', limit: 50 } });
    // A listing that ends exactly at a page's end says nothing.
    for (const id of fake.inbox(session.email).slice(60)) await mt.deleteMessage(session, id);
    const whole = await mt.listMessages(session);
    expect(whole).toHaveLength(60);
    expect(whole.cut).toBeUndefined();
  }, 60_000);

  it('stops asking for pages once the answers read reach the byte bound', async () => {
    const { fake, mt, session } = await setup({}, { listingLimits: { maxBytes: 1024 * 1024 } });
    for (let i = 0; i < 100; i++) fake.deliver(session.email, { subject: `${i} ${'s'.repeat(30_000)}`, at: at(i) });
    const list = await mt.listMessages(session);
    // A page is ~0.9 MiB: the second takes the listing past 1 MiB, and no third is asked for.
    expect(list).toHaveLength(60);
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'bytes', limit: 1024 * 1024 } });
    expect(fake.log.filter((l) => l.path === '/messages')).toHaveLength(2);
    expect(listingNote(list.length, list.cut)).toBe(
      'The service lists more than these 60 messages (a listing stops at 1 MiB of answers).',
    );
  });

  it('100,000 domains: the first 1,000 are kept (a duplicate check made the list quadratic: 64 s)', async () => {
    const domains = Array.from({ length: 100_000 }, (_, i) => ({ domain: `d${i % 50_000}.test` }));
    const { mt } = await setup({ domains, pageSize: 100_000 });
    const list = await mt.listDomains();
    expect(list.domains).toHaveLength(1_000);
    expect(list.domains[0]).toEqual({ id: 1, domain: 'd0.test' });
    expect(list.domains[999]).toEqual({ id: 1000, domain: 'd999.test' });
  });

  it('a domain named twice is listed once, inactive and private ones are left out, a bad entry costs only itself', async () => {
    const { mt } = await setup({
      domains: [
        { domain: 'a.test' },
        { domain: 'old.test', isActive: false },
        { domain: 'a.test' },
        { domain: '' },
        { domain: 'b.test', isPrivate: true },
        { domain: 'c.test' },
      ],
    });
    expect((await mt.listDomains()).domains).toEqual([
      { id: 1, domain: 'a.test' },
      { id: 2, domain: 'c.test' },
    ]);
  });
});
