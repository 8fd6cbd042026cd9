/**
 * Terminal column widths. A CJK ideograph, a fullwidth form or an emoji takes two columns, a combining
 * mark none; JavaScript's `.length` counts neither. The list rows and the body wrapper measure with this
 * so a line never overflows the screen and a cut never lands inside a wide character, a surrogate pair
 * or a grapheme cluster (an emoji with skin tone, a flag, a ZWJ family).
 *
 * Kept in-house rather than importing `string-width` (a transitive dependency of ink that may move).
 * The table below agrees with it on the East Asian Wide/Fullwidth ranges of Unicode 16.
 */

// East Asian Wide (W) and Fullwidth (F) code points, as inclusive [start, end] pairs, sorted. Emoji with
// default emoji presentation are left to the \p{Emoji_Presentation} test below, which keeps this short;
// gaps of unassigned code points were merged into their neighbours for the same reason.
const WIDE_RANGES: readonly number[] = [
  0x1100, 0x115f, 0x2329, 0x232a, 0x2630, 0x2637, 0x268a, 0x268f, 0x2e80, 0x303e, 0x3041, 0x3247,
  0x3250, 0xa4c6, 0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19, 0xfe30, 0xfe6b,
  0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x1b2fb, 0x1d300, 0x1d376, 0x1f1ae, 0x1f265, 0x1f6d9,
  0x1f6d9, 0x1f7da, 0x1f7da, 0x1fa8b, 0x1fafa, 0x20000, 0x3fffd,
];

// Printable ASCII only: the common case, measured without segmenting.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
// Code points that take no column of their own: marks, format characters (ZWJ, soft hyphen, variation
// selectors are Mn), controls, lone surrogates, default ignorables such as the Hangul fillers.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}]$/u;
// A regional indicator pairs into a two-column flag; alone, terminals draw it as one column.
const LONE_REGIONAL_INDICATOR = /^\p{Regional_Indicator}$/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
// A text-default emoji (❤, ©, a digit for a keycap) turned into an emoji by VS16 or the keycap mark.
const EMOJI_BY_SELECTOR = /\p{Emoji}(?:\ufe0f|\u20e3)/u;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function inWideTable(cp: number): boolean {
  if (cp < 0x1100) return false;
  let lo = 0;
  let hi = WIDE_RANGES.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = WIDE_RANGES[mid * 2] as number;
    const end = WIDE_RANGES[mid * 2 + 1] as number;
    if (cp < start) hi = mid - 1;
    else if (cp > end) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Columns taken by one grapheme cluster (0, 1 or 2). */
export function clusterWidth(cluster: string): number {
  const first = cluster.codePointAt(0);
  if (first === undefined) return 0;
  if (cluster.length === 1 && first >= 0x20 && first < 0x7f) return 1;
  if (LONE_REGIONAL_INDICATOR.test(cluster)) return 1;
  if (EMOJI_PRESENTATION.test(cluster) || EMOJI_BY_SELECTOR.test(cluster)) return 2;
  // The first code point that shows decides: a cluster may start with a format character.
  for (const ch of cluster) {
    if (ZERO_WIDTH.test(ch)) continue;
    return inWideTable(ch.codePointAt(0) as number) ? 2 : 1;
  }
  return 0;
}

// Anything that can join code points into one cluster or take no column: marks (VS16 included),
// format characters (ZWJ, soft hyphen), default ignorables (Hangul fillers), regional indicators, skin-tone modifiers, Hangul jamo vowels
// and tails, the keycap mark. A string without them is measured code point by code point, which is
// some 20 times faster than grapheme segmentation and is what long bodies mostly are.
const NEEDS_SEGMENTS = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Regional_Indicator}\p{Emoji_Modifier}\u1160-\u11ff\u20e3]/u;

/** Columns of one code point standing alone as a cluster. */
function codePointWidth(cp: number): number {
  if (cp < 0x7f) return cp >= 0x20 ? 1 : 0;
  if (cp < 0xa0) return 0;
  if (cp < 0x1100) return 1;
  if (inWideTable(cp)) return 2;
  if (cp >= 0x231a && EMOJI_PRESENTATION.test(String.fromCodePoint(cp))) return 2;
  return (cp >= 0xd800 && cp <= 0xdfff) ? 0 : 1;
}

/** Terminal columns taken by `s` (wide CJK/emoji count 2, combining marks 0). Expects safe text. */
export function textWidth(s: string): number {
  if (PLAIN_ASCII.test(s)) return s.length;
  let width = 0;
  if (!NEEDS_SEGMENTS.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const cp = s.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      width += codePointWidth(cp);
    }
    return width;
  }
  for (const { segment } of segmenter.segment(s)) width += clusterWidth(segment);
  return width;
}

/** Grapheme clusters of `s` as parallel arrays: UTF-16 offset where each starts, and its width. */
export interface ClusterStops {
  starts: number[];
  widths: number[];
}

/** Where each grapheme cluster of `s` starts and how wide it is: the unit every cut works on. */
export function clusterStops(s: string): ClusterStops {
  const starts: number[] = [];
  const widths: number[] = [];
  if (PLAIN_ASCII.test(s)) {
    for (let i = 0; i < s.length; i++) {
      starts.push(i);
      widths.push(1);
    }
  } else if (!NEEDS_SEGMENTS.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const cp = s.codePointAt(i) as number;
      starts.push(i);
      widths.push(codePointWidth(cp));
      if (cp > 0xffff) i++;
    }
  } else {
    for (const { segment, index } of segmenter.segment(s)) {
      starts.push(index);
      widths.push(clusterWidth(segment));
    }
  }
  return { starts, widths };
}

/** Splits `s` into grapheme clusters with their widths. */
export function clusters(s: string): Array<{ text: string; width: number }> {
  const { starts, widths } = clusterStops(s);
  return starts.map((start, i) => ({ text: s.slice(start, starts[i + 1] ?? s.length), width: widths[i] as number }));
}

/**
 * Cuts `s` to at most `cols` columns, never inside a wide character, surrogate pair or cluster. When
 * something was cut, `ellipsis` (default "…", pass "" for a bare cut) ends the result within `cols`.
 */
export function truncateToWidth(s: string, cols: number, ellipsis = '…'): string {
  if (cols <= 0) return '';
  if (PLAIN_ASCII.test(s) && PLAIN_ASCII.test(ellipsis)) {
    if (s.length <= cols) return s;
    return ellipsis.length > cols ? s.slice(0, cols) : s.slice(0, cols - ellipsis.length) + ellipsis;
  }
  if (textWidth(s) <= cols) return s;
  let mark = textWidth(ellipsis);
  if (mark > cols) {
    ellipsis = '';
    mark = 0;
  }
  const budget = cols - mark;
  let used = 0;
  const { starts, widths } = clusterStops(s);
  let end = 0;
  for (let i = 0; i < starts.length; i++) {
    const w = widths[i] as number;
    if (used + w > budget) break;
    used += w;
    end = starts[i + 1] ?? s.length;
  }
  return s.slice(0, end) + ellipsis;
}

/** `s` cut to `cols` columns (with an ellipsis when cut) and padded with spaces to exactly `cols`. */
export function fitToWidth(s: string, cols: number, ellipsis = '…'): string {
  const cut = truncateToWidth(s, cols, ellipsis);
  return cut + ' '.repeat(Math.max(0, cols - textWidth(cut)));
}
