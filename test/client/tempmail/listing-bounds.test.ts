/**
 * The tempmail provider's listings under their bounds, over real HTTP from a fixture server answering in
 * the shapes of docs/server/http-api.md: an entry of check-mail that is not a record with an id costs only itself (dropped,
 * counted, the rest listed, the count kept through a 304); a check-mail of more than 10,000 messages
 * keeps the first 10,000 and says so; the domain list drops a bad entry and keeps 1,000 at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingNote } from '../../../src/client/wire/listing';
import { createTempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import type { Session } from '../../../src/model/mail-types';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv?.close());

const session: Session = { email: 'a@x.test', token: 'tok-listing', expiresAt: null };
const message = (id: unknown, subject = `m${String(id)}`) => ({
  id,
  sender_name: 'A',
  sender_email: 'a@x.test',
  subject,
  received_at: '2026-01-01 10:00:00',
});

describe('tempmail listings under their bounds', () => {
  it('entries without a usable id or not records are dropped and counted; the rest is listed, also after a 304', async () => {
    srv.handle((_req, res, raw) => {
      if (raw.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        return void res.end();
      }
      const messages = [
        message(3),
        message('../x'),
        message('a?b=c'),
        { subject: 'no id' },
        'not a record',
        null,
        message(-1),
        message('2'),
        message(1),
      ];
      sendJson(res, 200, { status: 'success', messages }, { etag: '"v1"' });
    });
    const provider = createTempmailProvider({ baseUrl: srv.baseUrl });
    for (const round of [1, 2]) {
      const list = await provider.listMessages(session);
      expect(
        list.map((m) => m.id),
        `round ${round}`,
      ).toEqual(['3', '2', '1']);
      expect(list.cut).toEqual({ unreadable: 6 });
    }
    expect(listingNote(3, { unreadable: 6 })).toBe(
      "6 listed messages left out (no usable id in the service's answer).",
    );
  });

  it('a check-mail of 12,000 messages keeps the first 10,000 and says so', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 200, {
        status: 'success',
        messages: Array.from({ length: 12_000 }, (_, i) => message(12_000 - i)),
      }),
    );
    const list = await createTempmailProvider({ baseUrl: srv.baseUrl }).listMessages(session);
    expect(list).toHaveLength(10_000);
    expect(list[0]!.id).toBe('12000');
    expect(list.at(-1)!.id).toBe('2001');
    expect(list.cut).toEqual({ unreadable: 0, stoppedAt: { bound: 'items', limit: 10_000 } });
  });

  it('the domain list drops a bad entry and keeps 1,000 domains and accounts at most', async () => {
    srv.handle((_req, res) =>
      sendJson(res, 200, {
        status: 'success',
        domains: [
          { id: 1, domain: 'a.test' },
          { id: 2 },
          'x',
          { id: 'two', domain: 'b.test' },
          ...Array.from({ length: 2_000 }, (_, i) => ({ id: i + 3, domain: `d${i}.test` })),
        ],
        extmail_accounts: [
          { id: 1 },
          ...Array.from({ length: 2_000 }, (_, i) => ({ id: i + 2, email: `box${i}@mail.test` })),
        ],
      }),
    );
    const list = await createTempmailProvider({ baseUrl: srv.baseUrl }).listDomains();
    expect(list.domains).toHaveLength(1_000);
    expect(list.domains.slice(0, 2)).toEqual([
      { id: 1, domain: 'a.test' },
      { id: 3, domain: 'd0.test' },
    ]);
    expect(list.extmailAccounts).toHaveLength(1_000);
    expect(list.extmailAccounts[0]).toEqual({ id: 2, email: 'box0@mail.test' });
  });
});
