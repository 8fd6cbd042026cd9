/**
 * Grouped reads (src/server/store/postgres/grouped-reads.ts) with a read function of the test's own, so
 * the test decides when each query answers and what the data is meanwhile: a key asked again while its
 * read is in the database goes in the next read (never an answer older than its question), and no more
 * than inFlight reads are in the database at once. The real queries are tested on Postgres
 * (postgres-grouped-reads.pg.test.ts).
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { GroupedReads } from '../../../src/server/store/postgres/grouped-reads';
import { waitFor } from '../../harness/wait';

/** Reads whose queries answer when the test says, with the value the data had when each was sent. */
function heldReads(inFlight?: number) {
  const data = { value: 1 };
  const sent: { keys: string[]; answer: () => void }[] = [];
  const reads = new GroupedReads<{ value: number }>({
    run: (work) => work({} as pg.Pool),
    readAll: async (_pool, keys) => {
      const value = data.value;
      await new Promise<void>((answer) => sent.push({ keys: [...keys], answer }));
      return new Map(keys.map((k) => [k, { value }]));
    },
    copy: (v) => ({ ...v }),
    ...(inFlight === undefined ? {} : { inFlight }),
  });
  return { data, sent, reads };
}

describe('grouped reads', () => {
  it('never joins a read already in the database: a key asked again goes in the next one', async () => {
    const { data, sent, reads } = heldReads();
    const first = reads.read('a');
    await waitFor(() => sent.length === 1);
    // The data changes while the first read is in the database; a question asked after it sees that.
    data.value = 2;
    const second = reads.read('a');
    await waitFor(() => sent.length === 2);
    sent[0]!.answer();
    sent[1]!.answer();
    expect(await first).toEqual({ value: 1 });
    expect(await second).toEqual({ value: 2 });
    expect(sent.map((s) => s.keys)).toEqual([['a'], ['a']]);
  });

  it('keeps inFlight reads in the database at most; what comes meanwhile goes together in the next', async () => {
    const { sent, reads } = heldReads(2);
    const asked = [reads.read('a')];
    await waitFor(() => sent.length === 1);
    asked.push(reads.read('b'));
    await waitFor(() => sent.length === 2);
    asked.push(reads.read('c'), reads.read('d'), reads.read('c'));
    // Two in the database: c and d wait, however many turns go by.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(sent.length).toBe(2);
    sent[0]!.answer();
    await waitFor(() => sent.length === 3);
    expect(sent[2]!.keys).toEqual(['c', 'd']);
    sent[1]!.answer();
    sent[2]!.answer();
    expect(await Promise.all(asked)).toEqual([{ value: 1 }, { value: 1 }, { value: 1 }, { value: 1 }, { value: 1 }]);
  });
});
