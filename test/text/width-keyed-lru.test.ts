/**
 * Ink's text caches (its measure-text.js and wrap-text.js, given this class for quick-lru) keep one
 * terminal's measures apart from another's: a text measured for a clustering terminal is not served to
 * one that is not, and the cache stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { CLUSTERED, WIDEST, withWidths } from '../../src/text/active-widths';
import WidthKeyedLru from '../../src/text/width-keyed-lru';

describe('WidthKeyedLru', () => {
  it("keeps what one terminal's app cached from another's", () => {
    const cache = new WidthKeyedLru<number>({ maxSize: 10 });
    withWidths(CLUSTERED, () => cache.set('👍🏽', 2));
    expect(withWidths(WIDEST, () => cache.get('👍🏽'))).toBeUndefined();
    withWidths(WIDEST, () => cache.set('👍🏽', 4));
    expect(withWidths(CLUSTERED, () => cache.get('👍🏽'))).toBe(2);
    expect(withWidths(WIDEST, () => cache.get('👍🏽'))).toBe(4);
  });

  it('holds at most maxSize entries, the least recently used going first', () => {
    const cache = new WidthKeyedLru<number>({ maxSize: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });
});
