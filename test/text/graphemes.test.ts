/**
 * graphemes.ts splits exactly as Intl.Segmenter does: a string without a code point that may join is
 * one cluster per code point (checked over every code point below U+20000, alone, doubled, between
 * letters and beside every kind of neighbour), and any string is split as the segmenter splits it.
 */
import { describe, expect, it } from 'vitest';
import { graphemes, MAY_JOIN } from '../../src/text/graphemes';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const split = (s: string) => [...segmenter.segment(s)].map(({ segment, index }) => [segment, index]);
const ours = (s: string) => [...graphemes(s)].map(({ segment, index }) => [segment, index]);

/** Every code point below U+20000 (where the scripts and emoji live) but the surrogates. */
function* codePoints(): Generator<string> {
  for (let cp = 0; cp < 0x20000; cp++) if (cp < 0xd800 || cp > 0xdfff) yield String.fromCodePoint(cp);
}

// One of each kind of code point the fast path keeps: letters, digits, space, LF, controls, ESC,
// symbols (pictographs, emoji with text and emoji presentation), CJK, halfwidth kana, Indic and Thai
// consonants (which marks would join), Arabic, private use, Hangul syllables (which only jamo join).
const NEIGHBOURS = [
  'a',
  '0',
  ' ',
  '\n',
  '\x00',
  '\x1b',
  '\x7f',
  '\x85',
  '…',
  '·',
  '©',
  '❤',
  '😀',
  '⌚',
  '日',
  'ｶ',
  '\u0915',
  '\u0e01',
  '\u0627',
  '\ue000',
  '\u{1f3f4}',
  '€',
  '한',
  '가',
];

const ALPHABET = [
  ...'abc XYZ 09.,-_#*…·─│\n\r\t\x1b',
  ...'日本語한국어ｱｲｳＡ𠀋ÜñéПрกิ',
  '\u0301',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u00ad',
  '\ufe0f',
  '\u20e3',
  '\u3164',
  '\u1100',
  '\u1161',
  '\u11a8',
  '\uac00',
  '\uff9e',
  '😀',
  '👍',
  '🏽',
  '👨',
  '❤',
  '©',
  '🏴',
  '\u{e0067}',
  '\u{e007f}',
  '🇩',
  '🇪',
  '\u0915',
  '\u094d',
  '\u0600',
  '\u0d4e',
  '\u0e33',
  '\ud800',
];

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('graphemes', () => {
  it('keeps letters, symbols and controls on the fast path, not what joins', () => {
    for (const s of NEIGHBOURS) expect(MAY_JOIN.test(s), JSON.stringify(s)).toBe(false);
    for (const s of [
      '\r',
      '\u0301',
      '\u200d',
      '\ufe0f',
      '\u{1f1e6}',
      '\u{1f3fb}',
      '\u1100',
      '\u1161',
      '\u11a8',
      '\ud7b0',
      '\u0e33',
      '\uff9e',
      '\u0600',
      '\ud800',
    ]) {
      expect(MAY_JOIN.test(s), JSON.stringify(s)).toBe(true);
    }
  });

  it('finds one cluster per code point wherever no code point may join: every code point alone, doubled, between letters and beside each kind', () => {
    let fast = 0;
    for (const c of codePoints()) {
      if (MAY_JOIN.test(c)) continue;
      fast++;
      // c doubled, then after and before each neighbour: "cc" "ca" "ac" "c0" "0c" ... in one string.
      const s = c + NEIGHBOURS.map((n) => c + n).join('') + c;
      let clusters = 0;
      for (const _ of segmenter.segment(s)) clusters++;
      if (clusters !== 2 * NEIGHBOURS.length + 2)
        expect.fail(`${JSON.stringify(s)} is ${clusters} clusters to Intl.Segmenter`);
    }
    expect(fast).toBeGreaterThan(100_000);
  }, 120_000);

  it('splits every code point alone and random hard text as Intl.Segmenter does, and finds the segment at each offset', () => {
    for (const c of codePoints()) if (ours(c).length !== 1) expect.fail(`U+${c.codePointAt(0)!.toString(16)}`);
    const next = random(11);
    for (let n = 0; n < 20_000; n++) {
      let s = '';
      for (let i = 1 + Math.floor(next() * 12); i > 0; i--) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
      expect(ours(s), JSON.stringify(s)).toEqual(split(s));
      const mine = graphemes(s);
      const theirs = segmenter.segment(s);
      for (let i = -1; i <= s.length; i++) {
        const a = mine.containing(i);
        const b = theirs.containing(i);
        expect(a && [a.segment, a.index], `${JSON.stringify(s)} containing(${i})`).toEqual(b && [b.segment, b.index]);
      }
    }
  }, 60_000);
});
