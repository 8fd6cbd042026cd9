import { describe, expect, it } from 'vitest';
import {
  caseSensitive,
  findMatches,
  firstMatchFrom,
  lineOf,
  lineSegments,
  MAX_MATCHES,
} from '../../../src/tui/search/find-matches';
import { isTerminalSafe } from '../../../src/text/safe-text';

const LINES = ['Your Code is 482913.', 'Enter the code within', 'ten minutes. CODE again: code.'];

describe('findMatches', () => {
  it('smart case: lower case finds every case, a capital only that case', () => {
    expect(caseSensitive('code')).toBe(false);
    expect(caseSensitive('Code')).toBe(true);
    expect(caseSensitive('été')).toBe(false);
    expect(caseSensitive('Été')).toBe(true);
    expect(findMatches(LINES, 'code').list).toHaveLength(4);
    expect(findMatches(LINES, 'Code').list).toHaveLength(1);
    expect(findMatches(LINES, 'CODE').list).toHaveLength(1);
    expect(findMatches(['ÉTÉ été'], 'été').list).toHaveLength(2);
  });

  it('is literal text: what would be regular-expression syntax matches itself', () => {
    expect(findMatches(['a.b axb (x) [y] a+b \\d $5 ^up 1-2'], 'a.b').list).toHaveLength(1);
    for (const p of ['(x)', '[y]', 'a+b', '\\d', '$5', '^up', '1-2'])
      expect([p, findMatches(['a.b axb (x) [y] a+b \\d $5 ^up 1-2'], p).list.length]).toEqual([p, 1]);
  });

  it('a space in the pattern matches a line break of the wrapping', () => {
    const m = findMatches(['please confirm', 'your address now'], 'confirm your address');
    expect(m.list).toHaveLength(1);
    expect([lineOf(m, m.list[0]!.start), lineOf(m, m.list[0]!.end - 1)]).toEqual([0, 1]);
    // Each line gets its piece of it.
    expect(lineSegments(m, ['please confirm', 'your address now'], 0, 0)).toEqual([
      { text: 'please ', hit: 'none' },
      { text: 'confirm', hit: 'current' },
    ]);
    expect(lineSegments(m, ['please confirm', 'your address now'], 1, 0)).toEqual([
      { text: 'your address', hit: 'current' },
      { text: ' now', hit: 'none' },
    ]);
  });

  it('cuts a line into substrings only: nothing added, the current match apart from the others', () => {
    const m = findMatches(LINES, 'code');
    const segments = lineSegments(m, LINES, 2, 2);
    expect(segments.map((s) => s.text).join('')).toBe(LINES[2]);
    expect(segments.filter((s) => s.hit !== 'none').map((s) => [s.text, s.hit])).toEqual([
      ['CODE', 'current'],
      ['code', 'match'],
    ]);
    for (const s of segments) expect(isTerminalSafe(s.text)).toBe(true);
    // A line with no match is one piece; an empty pattern finds nothing.
    expect(lineSegments(findMatches(['plain'], 'zzz'), ['plain'], 0, 0)).toEqual([{ text: 'plain', hit: 'none' }]);
    expect(findMatches(LINES, '').list).toEqual([]);
  });

  it('never splits a character made of two UTF-16 units', () => {
    const lines = ['😀a😀A😀'];
    const m = findMatches(lines, 'a');
    expect(m.list).toHaveLength(2);
    for (const s of lineSegments(m, lines, 0, 0)) expect(s.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });

  it('starts from a line, comes round past the end, and stops counting at MAX_MATCHES', () => {
    const m = findMatches(LINES, 'code');
    expect(firstMatchFrom(m, 1)).toBe(1);
    expect(firstMatchFrom(m, 2)).toBe(2);
    expect(firstMatchFrom(findMatches(LINES, 'your'), 1)).toBe(0);
    const big = findMatches(['e'.repeat(MAX_MATCHES + 10)], 'e');
    expect([big.list.length, big.capped]).toEqual([MAX_MATCHES, true]);
  });
});
