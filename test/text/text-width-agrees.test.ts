/**
 * Our widths are Ink's: textWidth, and the per-cluster widths every cut and wrap adds up, equal
 * string-width (the function Ink measures its layout with) on random text from every script and emoji
 * family we know to be hard, including the code-point-by-code-point fast path. And the string-width we
 * import is the very copy Ink loads (a second copy could be another version that measures differently).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { clusterStops, textWidth } from '../../src/text/text-width';

const ALPHABET = [
  ...'abc XYZ 09.,-_',
  ...'日本語中文한국어カタカナｱｲｳＡＢＣ𠀋',
  ...'ÜñéПриветΑλφα─│┌',
  '\u0301', '\u0308', '\u200b', '\u200d', '\u00ad', '\ufe0f', '\u20e3', '\u3164', '\u115f',
  '😀', '👍', '🏽', '👨', '👩', '👧', '❤', '©', '#', '1',
  '🇩', '🇪', '\u1100', '\u1161', '\u11a8', '가',
  '\u0915', '\u094d', '\u093f', '\u0d4e', '\u0e01', '\u0e31', '\u0627', '\u064b', '\t',
  // Letters that join without being marks: halfwidth sound marks, Thai and Lao AM.
  'ﾞ', 'ﾟ', '\u0e33', '\u0eb3',
];

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// A fixed seed: every run checks the same strings, and a failure names one.
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('text widths agree with string-width', () => {
  it('on 20,000 random strings, whole and cluster by cluster, cut where Intl.Segmenter cuts', () => {
    const next = random(42);
    for (let n = 0; n < 20_000; n++) {
      const length = 1 + Math.floor(next() * 12);
      let s = '';
      for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
      const want = stringWidth(s);
      expect(textWidth(s), JSON.stringify(s)).toBe(want);
      const stops = clusterStops(s);
      expect(stops.widths.reduce((a, b) => a + b, 0), JSON.stringify(s)).toBe(want);
      expect(stops.starts, JSON.stringify(s)).toEqual([...SEGMENTER.segment(s)].map((g) => g.index));
    }
  });

  it('on long single-script runs (the fast path that skips segmenting)', () => {
    for (const s of ['日本語のテキスト'.repeat(500), 'Привет мир '.repeat(500), 'ｱｲｳｴｵ'.repeat(300), '─│┌┐'.repeat(400)]) {
      expect(textWidth(s)).toBe(stringWidth(s));
    }
  });

  it('imports the copy of string-width that Ink loads', () => {
    const fromUs = createRequire(import.meta.url).resolve('string-width');
    const ink = dirname(createRequire(import.meta.url).resolve('ink'));
    const fromInk = createRequire(`${ink}/`).resolve('string-width');
    expect(fromUs).toBe(fromInk);
  });
});
