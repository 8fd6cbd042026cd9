/**
 * Grapheme clusters, as Intl.Segmenter's grapheme segments, without building a segmenter for text in
 * which every code point is its own cluster: text-width.ts measures and cuts long bodies with it, and
 * most text needs no segmenter's work per cluster.
 */

// Every code point that can join a neighbour into one cluster (UAX #29): CR (of CR LF), marks and the
// other Grapheme_Extend letters (halfwidth katakana sound marks, emoji modifiers, tags), format
// characters (ZWJ, ZWNJ, soft hyphen, Prepend controls), default ignorables, regional indicators, Hangul
// jamo (L, V, T: a precomposed syllable joins only a jamo beside it, UAX #29 GB6-GB8, so Korean text
// without jamo stays on the fast path), the SpacingMark letters that are not marks (Thai and Lao AM),
// the Prepend letters that are not Cf, the Unicode 16 letters Node's ICU joins (Tulu-Tigalari's Prepend,
// Kirat Rai's vowel signs), and lone surrogates. A string without any is one cluster per code
// point; test/text checks that against Intl.Segmenter over every code point below U+20000, alone, doubled
// and beside others.
export const MAY_JOIN =
  /[\r\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Regional_Indicator}\p{Emoji_Modifier}\p{Grapheme_Extend}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u0e33\u0eb3\u0d4e\u{111c2}\u{111c3}\u{1193f}\u{11941}\u{11a3a}\u{11a84}-\u{11a89}\u{11d46}\u{11f02}\u{113d1}\u{16d63}\u{16d67}-\u{16d6a}\ud800-\udfff]/u;

/** One grapheme segment, the fields of Intl.Segmenter's that the packages read. */
export interface Grapheme {
  segment: string;
  index: number;
  input: string;
}

/** What Intl.Segmenter's segment() returns and the packages use: the segments, and the one holding an index. */
export interface Graphemes extends Iterable<Grapheme> {
  containing(index?: number): Grapheme | undefined;
}

let segmenter: Intl.Segmenter | undefined;

/** Each code point of `input` as its own segment. */
class CodePointSegments implements Graphemes {
  constructor(private readonly input: string) {}

  private at(start: number): Grapheme {
    const size = (this.input.codePointAt(start) as number) > 0xffff ? 2 : 1;
    return { segment: this.input.slice(start, start + size), index: start, input: this.input };
  }

  *[Symbol.iterator](): Iterator<Grapheme> {
    for (let i = 0; i < this.input.length; ) {
      const g = this.at(i);
      i += g.segment.length;
      yield g;
    }
  }

  /** As Intl's: the segment holding UTF-16 offset `index` (a number as ToIntegerOrInfinity reads it), or undefined outside the string. */
  containing(index?: number): Grapheme | undefined {
    const n = Math.trunc(Number(index)) || 0;
    if (n < 0 || n >= this.input.length) return undefined;
    const c = this.input.charCodeAt(n);
    const low =
      c >= 0xdc00 &&
      c <= 0xdfff &&
      n > 0 &&
      this.input.charCodeAt(n - 1) >= 0xd800 &&
      this.input.charCodeAt(n - 1) <= 0xdbff;
    return this.at(low ? n - 1 : n);
  }
}

/** The grapheme clusters of `s`, exactly as `new Intl.Segmenter(undefined, {granularity: 'grapheme'}).segment(s)` gives them. */
export function graphemes(s: string): Graphemes {
  if (!MAY_JOIN.test(s)) return new CodePointSegments(s);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(s);
}
