/**
 * The marks book is pruned to a whole listing of its address (issue 38): the marks of messages no longer
 * listed go, those still listed stay with their place in the bound, and another address's marks are
 * never touched, even by an empty listing.
 */
import { describe, expect, it } from 'vitest';
import { MarkBook } from '../../../src/tui/session/mark-book';
import type { Mark } from '../../../src/tui/viewer/mark';

const code = (c: string): Mark => ({ code: c, link: null });

describe('MarkBook.prune', () => {
  it('forgets the marks of ids no longer listed and keeps the listed ones', () => {
    const book = new MarkBook();
    const marks = book.of('svc a@x.test');
    for (const id of ['1', '2', '3', '4']) marks.set(id, code(`10000${id}`));
    marks.prune(new Set(['2', '4', '9']));
    expect(['1', '2', '3', '4'].map((id) => marks.get(id)?.code ?? null)).toEqual([null, '100002', null, '100004']);
    // The same book through a new handle (the next render's): the pruned marks are gone from it too.
    expect(book.of('svc a@x.test').get('1')).toBeUndefined();
  });

  it('an empty listing empties that address only; the other addresses keep theirs', () => {
    const book = new MarkBook();
    book.of('svc a@x.test').set('1', code('111111'));
    book.of('svc b@x.test').set('1', code('222222'));
    book.of('svc a@x.test').prune(new Set());
    expect(book.of('svc a@x.test').get('1')).toBeUndefined();
    expect(book.of('svc b@x.test').get('1')?.code).toBe('222222');
  });

  it('pruned marks free their room under the bound: kept ones are not pushed out by newer marks', () => {
    const book = new MarkBook({ addresses: 4, marks: 3 });
    const marks = book.of('svc a@x.test');
    for (const id of ['1', '2', '3']) marks.set(id, code(id));
    marks.prune(new Set(['1']));
    marks.set('4', code('4'));
    marks.set('5', code('5'));
    expect(['1', '4', '5'].map((id) => marks.get(id)?.code)).toEqual(['1', '4', '5']);
  });
});
