/**
 * ClientLimits on a real store (MemoryStore; two ClientLimits on one store stand for two instances on one
 * database): a busy client's hits are taken in blocks and still meet the limit exactly; a client that
 * stops leaves at most one block counted unused; a quiet client is counted hit by hit; a refused client
 * is told how long to wait.
 */
import { describe, expect, it } from 'vitest';
import { ClientLimits, type RateLimits } from '../../../src/server/limits/client-limits';
import { MemoryStore } from '../../../src/server/store/memory-store';

const rates = (http: number): RateLimits => ({ create: 30, http, 'smtp-message': 0, 'smtp-recipient': 0 });

async function storeAndClock() {
  const store = new MemoryStore();
  await store.open();
  let now = 1_800_000_000_000;
  return {
    store,
    clock: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('ClientLimits', () => {
  it('lets a busy client have exactly its limit in blocks, then refuses it (and not another client)', async () => {
    const { store, clock } = await storeAndClock();
    const limits = new ClientLimits(store, rates(100), clock);
    for (let i = 0; i < 100; i++) expect(await limits.hit('http', '192.0.2.1'), `hit ${i + 1}`).toBe(0);
    expect(await limits.hit('http', '192.0.2.1')).toBe(60);
    expect(await limits.hit('http', '192.0.2.2')).toBe(0);
  });

  it('counts what another instance took: a client that stopped leaves at most one block unused', async () => {
    const { store, clock, advance } = await storeAndClock();
    const a = new ClientLimits(store, rates(100), clock);
    const b = new ClientLimits(store, rates(100), clock);
    for (let i = 0; i < 10; i++) expect(await a.hit('http', '192.0.2.1')).toBe(0);
    // A took blocks of 1, 2, 4 and then 5 (a twentieth of 100): 12 counted for 10 used.
    let allowed = 0;
    while ((await b.hit('http', '192.0.2.1')) === 0) allowed++;
    expect(allowed).toBe(88);
    // A quiet client (one hit a second) is counted hit by hit: nothing is held for it.
    for (let i = 0; i < 5; i++) {
      advance(1000);
      expect(await b.hit('http', '192.0.2.9')).toBe(0);
    }
    let left = 0;
    while ((await a.hit('http', '192.0.2.9')) === 0) left++;
    expect(left).toBe(95);
  });

  it('keeps small limits exact (create-session: 30 a minute), and forgets nothing on a reload but what it held', async () => {
    const { store, clock, advance } = await storeAndClock();
    const limits = new ClientLimits(store, rates(0), clock);
    for (let i = 0; i < 30; i++) expect(await limits.hit('create', '2001:db8::1')).toBe(0);
    expect(await limits.hit('create', '2001:db8::2')).toBe(60); // the same /64
    expect(await limits.hit('http', '2001:db8::1')).toBe(0); // no HTTP limit here
    limits.update({ create: 31 });
    expect(await limits.hit('create', '2001:db8::1')).toBe(0);
    advance(60_000);
    expect(await limits.hit('create', '2001:db8::1')).toBe(0);
  });
});
