/**
 * Grapheme clusters, as Intl.Segmenter's grapheme segments, without building a segmenter for text in
 * which every code point is its own cluster. The first Intl object a process builds loads ICU's data
 * (~9 ms, the segmenter's own construction is then ~0.1 ms), and Ink's string-width and tokenizer
 * segment every line of every frame: with this the first frame (plain text with a "…" or a "·") draws
 * without ICU. The build (scripts/build-config.mjs) gives this to string-width, wrap-ansi's string-width,
 * slice-ansi and @alcalzone/ansi-tokenize in place of their own segmenters; text-width.ts uses it too.
 */

// Every code point that can join a neighbour into one cluster (UAX #29): CR (of CR LF), marks and the
// other Grapheme_Extend letters (halfwidth katakana sound marks, emoji modifiers, tags), format
// characters (ZWJ, ZWNJ, soft hyphen, Prepend controls), default ignorables, regional indicators, Hangul
// jamo and syllables (L, V, T, LV, LVT), the SpacingMark letters that are not marks (Thai and Lao AM),
// the Prepend letters that are not Cf, the Unicode 16 letters Node's ICU joins (Tulu-Tigalari's Prepend,
// Kirat Rai's vowel signs), and lone surrogates. A string without any is one cluster per code
// point; test/text checks that against Intl.Segmenter over every code point below U+20000, alone, doubled
// and beside others.
export const MAY_JOIN =
  /[\r\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Regional_Indicator}\p{Emoji_Modifier}\p{Grapheme_Extend}\u1100-\u11ff\ua960-\ua97f\uac00-\ud7ff\u0e33\u0eb3\u0d4e\u{111c2}\u{111c3}\u{1193f}\u{11941}\u{11a3a}\u{11a84}-\u{11a89}\u{11d46}\u{11f02}\u{113d1}\u{16d63}\u{16d67}-\u{16d6a}\ud800-\udfff]/u;

/** One grapheme segment, the fields of Intl.Segmenter's that the packages read. */
export interface Grapheme {
  segment: string;
  index: number;
  input: string;
}

let segmenter: Intl.Segmenter | undefined;

/** Each code point of `s` as its own segment. */
function codePointSegments(s: string): Grapheme[] {
  const out: Grapheme[] = [];
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i) as number;
    const size = cp > 0xffff ? 2 : 1;
    out.push({ segment: s.slice(i, i + size), index: i, input: s });
    i += size;
  }
  return out;
}

/** The grapheme clusters of `s`, exactly as `new Intl.Segmenter(undefined, {granularity: 'grapheme'})` splits it. */
export function graphemes(s: string): Iterable<Grapheme> {
  if (!MAY_JOIN.test(s)) return codePointSegments(s);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(s);
}

/** A stand-in for a grapheme Intl.Segmenter (its segment() only), built when first needed. */
export const lazyGraphemeSegmenter = { segment: graphemes };
