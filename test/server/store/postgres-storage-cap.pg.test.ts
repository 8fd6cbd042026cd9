/**
 * The storage cap where the Postgres store stores (Store.deliver with caps, migration 7): deliveries
 * through two stores on one database at once, each of two copies, never pass the cap together; each is
 * stored whole or refused whole ('capped'), and the totals the triggers keep match the messages.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import type { Delivery, StorageCaps } from '../../../src/server/store/store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { newMessage, sessionRecord } from './store-suite';

const cleanup = cleanupAfterEach();

/** 120 deliveries of two copies each, through two stores at once, under `caps`; what became of them. */
async function burst(caps: StorageCaps | undefined): Promise<{ deliveries: Delivery[]; url: string; size: number }> {
  const { url } = await freshDatabase(cleanup);
  const stores: PostgresStore[] = [];
  for (let i = 0; i < 2; i++) {
    const store = cleanup.defer(new PostgresStore({ url, poolSize: 4 }), (s) => s.close());
    await store.open();
    stores.push(store);
  }
  const sessions = Array.from({ length: 10 }, () => sessionRecord());
  for (const s of sessions) await stores[0]!.putSession(s);
  const message = newMessage();
  const deliveries = await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      stores[i % 2]!.deliver([sessions[i % 10]!.id, sessions[(i + 1) % 10]!.id], message, Infinity, caps),
    ),
  );
  return { deliveries, url, size: message.raw.length };
}

async function stored(url: string): Promise<{ n: number; b: number; kept_n: number; kept_b: number }> {
  const { rows } = await inspect(cleanup, url).query(
    `SELECT (SELECT count(*)::int FROM tempmail_messages) AS n, (SELECT coalesce(sum(size), 0)::int FROM tempmail_messages) AS b,
            (SELECT sum(messages)::int FROM tempmail_usage) AS kept_n, (SELECT sum(bytes)::int FROM tempmail_usage) AS kept_b`,
  );
  return rows[0];
}

describe('the storage cap in the Postgres store', () => {
  it('stores deliveries through two stores at once up to the message cap, each whole or refused whole', async () => {
    const { deliveries, url, size } = await burst({ maxMessages: 50, maxBytes: 0 });
    expect(deliveries.filter((d) => d.stored.size === 2)).toHaveLength(25);
    expect(deliveries.filter((d) => d.capped && d.stored.size === 0)).toHaveLength(95);
    expect(await stored(url)).toEqual({ n: 50, b: 50 * size, kept_n: 50, kept_b: 50 * size });
  });

  it('stores them up to the byte cap (the messages as received)', async () => {
    const { size } = await burst(undefined);
    const { deliveries, url } = await burst({ maxMessages: 0, maxBytes: 7 * 2 * size + size });
    expect(deliveries.filter((d) => d.stored.size === 2)).toHaveLength(7);
    expect(deliveries.filter((d) => d.capped)).toHaveLength(113);
    expect(await stored(url)).toEqual({ n: 14, b: 14 * size, kept_n: 14, kept_b: 14 * size });
  });

  it('stores them all without caps, counted in the totals', async () => {
    const { deliveries, url, size } = await burst(undefined);
    expect(deliveries.every((d) => d.stored.size === 2 && !d.capped)).toBe(true);
    expect(await stored(url)).toEqual({ n: 240, b: 240 * size, kept_n: 240, kept_b: 240 * size });
  });
});
