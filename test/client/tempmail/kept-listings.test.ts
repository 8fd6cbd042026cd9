/** KeptListings (tempmail-client.ts): the check-mail answers kept for If-None-Match, bounded to the inboxes asked last. */
import { describe, expect, it } from 'vitest';
import { KeptListings } from '../../../src/client/tempmail/tempmail-client';
import type { MessageList } from '../../../src/client/wire/listing';

const listing = (subject: string) => [{ id: '1', subject }] as unknown as MessageList;

describe('KeptListings', () => {
  it('keeps an answer with its ETag, and forgets it when the next answer has none', () => {
    const kept = new KeptListings();
    kept.keep('t1', '"v1"', listing('first'));
    expect(kept.get('t1')).toEqual({ etag: '"v1"', summaries: listing('first') });
    kept.keep('t1', undefined, listing('second'));
    expect(kept.get('t1')).toBeUndefined();
    kept.keep('t1', '', listing('third'));
    expect(kept.get('t1')).toBeUndefined();
  });

  it('keeps only the inboxes answered last, forgetting the oldest', () => {
    const kept = new KeptListings(3);
    for (const token of ['a', 'b', 'c']) kept.keep(token, `"${token}"`, listing(token));
    kept.keep('a', '"a2"', listing('a again')); // a is now the newest
    kept.keep('d', '"d"', listing('d'));
    expect(kept.size).toBe(3);
    expect(kept.get('b')).toBeUndefined();
    expect(kept.get('a')?.etag).toBe('"a2"');
    expect(kept.get('c')?.etag).toBe('"c"');
    expect(kept.get('d')?.etag).toBe('"d"');
  });
});
