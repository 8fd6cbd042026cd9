/**
 * Cell widths: how many terminal columns a text takes, the one measure of the app and of Ink. Its
 * default export has string-width's signature, and the build (scripts/build-config.mjs) and the tests
 * (vitest.config.ts) alias `string-width` to this module, so Ink, wrap-ansi, slice-ansi, cli-truncate and
 * widest-line lay out with these widths too. The rule and the terminals' behaviour it comes from are in
 * docs/architecture.md, "Cell widths".
 *
 * In short: terminals agree on a grapheme cluster of one code point, and disagree on one of several.
 * Those that place text code point by code point (xterm, VTE, tmux, Alacritty, Terminal.app, screen)
 * add up the widths of its code points, some giving a column to a joiner; those that cluster (Ghostty,
 * WezTerm, foot, kitty, Windows Terminal, iTerm2) draw most clusters as one glyph. A cluster is
 * measured at the widest any of them draws it: where a terminal draws it narrower the row ends a few
 * columns early, and no row is ever pushed past the right edge. A terminal that says (DEC mode 2027)
 * that it clusters gets one of its emoji measured as it draws it: 2. Which terminal is measured for is
 * the running app's (active-widths.ts), never the process's: one service draws for many terminals.
 */
import { stripVTControlCharacters } from 'node:util';
import { eastAsianWidth } from 'get-east-asian-width';
import { activeWidths } from './active-widths';
import { graphemes, MAY_JOIN } from './graphemes';

/** string-width's options, the ones its callers (Ink and its helpers) pass. */
export interface WidthOptions {
  /** East Asian Ambiguous characters as one column (the default) or two. */
  ambiguousIsNarrow?: boolean;
  /** Measure escape sequences as text instead of removing them first (the caller already did). */
  countAnsiEscapeCodes?: boolean;
}

// An OSC sequence (a hyperlink, text/hyperlink.ts), whatever its URI holds: Node 22's
// stripVTControlCharacters removes one only when its URI is made of a few URL characters (no `+`, `,`,
// `!`, `(`...), and would measure the rest as text.
const OSC = /\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)/g;
// Printable ASCII only: the common case, measured by its length.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
// What a terminal draws in no column of its own. Marks sit on the character before them; format
// characters and default ignorables are invisible; Hangul vowel and final jamo join the syllable begun
// by an initial one. Not the spacing Prepended_Concatenation_Marks (ARABIC NUMBER SIGN...): visible.
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}\u1160-\u11ff\ud7b0-\ud7ff]/u;
const VISIBLE_FORMAT = /[\u0600-\u0605\u06dd\u0890\u0891\u08e2\u{110bd}\u{110cd}]/u;
const MARK = /\p{M}/u;
// A cluster of nothing but these is not drawn at all: Ink leaves it out of its frames.
const ALL_IGNORABLE = /^\p{Default_Ignorable_Code_Point}+$/u;
const ZWJ = 0x200d;
const ZWNJ = 0x200c;
const VS16 = 0xfe0f;

// The emoji of the last two Unicode versions (16.0, 17.0; ucs-detect's tables of wide characters): a
// clustering terminal's tables lag behind Node's (foot 1.25 drew Emoji 17 sequences five columns wide),
// so a cluster holding one keeps the widest measure. Extend it when Node's Unicode moves on (a test says so).
const RECENT_EMOJI =
  /[\u{1F6D8}\u{1FA89}\u{1FA8A}\u{1FA8E}\u{1FA8F}\u{1FABE}\u{1FAC6}\u{1FAC8}\u{1FACD}\u{1FADC}\u{1FADF}\u{1FAE9}\u{1FAEA}\u{1FAEF}]/u;
/** The Unicode version RECENT_EMOJI was written for. */
export const RECENT_EMOJI_UNICODE = '17.0';

// An RGI emoji sequence (a Unicode set of strings): built when first needed, in grapheme clustering
// mode only, as it costs more to build than everything else here.
let rgiEmoji: RegExp | undefined;

/** Columns of one code point standing alone as a cluster (C0 and C1 controls: none). */
export function codePointWidth(cp: number, ambiguousIsNarrow = true): number {
  if (cp < 0xa0 && (cp < 0x20 || cp >= 0x7f)) return 0;
  return eastAsianWidth(cp, { ambiguousAsWide: !ambiguousIsNarrow });
}

/** Columns of a cluster of one code point, `cp` (`ch` as text). */
function loneWidth(cp: number, ch: string, ambiguousIsNarrow: boolean): number {
  // A lone surrogate is written out as U+FFFD.
  if (cp >= 0xd800 && cp <= 0xdfff) return 1;
  // Controls move the cursor or nothing; Ink leaves an invisible character out of its frames.
  if (cp < 0xa0 && (cp < 0x20 || cp >= 0x7f)) return 0;
  if (ALL_IGNORABLE.test(ch)) return 0;
  // A regional indicator without its pair: some terminals draw it as a wide flag-less symbol.
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return 2;
  // Anything else Ink gives a cell, and a terminal that has no glyph for it a column: a mark with
  // nothing to sit on (xterm.js, iTerm2, contour), a lone vowel jamo, a format character.
  return codePointWidth(cp, ambiguousIsNarrow);
}

/** Columns of one grapheme cluster: the widest any terminal draws it (see the module's comment). */
export function clusterWidth(cluster: string, ambiguousIsNarrow = true): number {
  const first = cluster.codePointAt(0)!;
  if (cluster.length === (first > 0xffff ? 2 : 1)) return loneWidth(first, cluster, ambiguousIsNarrow);
  // CR LF, the one cluster of controls.
  if (first < 0x20) return 0;
  if (ALL_IGNORABLE.test(cluster)) return 0;
  // A terminal that clusters graphemes draws an RGI emoji cluster (👍🏽, a ZWJ family, a flag) as one
  // two-column glyph, unless it holds one of the newest emoji; everything else keeps the widest measure.
  if (activeWidths().clusters) {
    // biome-ignore lint/complexity/useRegexLiterals: built when first needed; as a literal, V8 builds the RGI emoji set when the module is parsed (its cost: docs/architecture.md, Cell widths)
    rgiEmoji ??= new RegExp('^\\p{RGI_Emoji}$', 'v');
    if (rgiEmoji.test(cluster) && !RECENT_EMOJI.test(cluster)) return 2;
  }
  let width = 0;
  // The width of the code point before, for a VS16 after it; and whether a visible one came yet.
  let before = 0;
  let based = false;
  for (const ch of cluster) {
    const cp = ch.codePointAt(0)!;
    let w: number;
    if (cp === ZWJ || cp === ZWNJ) {
      // Terminal.app, mlterm, and tmux where libc has no width for them give a joiner a column.
      w = 1;
    } else if (cp === VS16) {
      // Emoji presentation: a one-column symbol (♀, ❤, 1 of a keycap) becomes two wide.
      w = before === 1 ? 1 : 0;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      w = 1;
    } else if (ZERO_WIDTH.test(ch) && !VISIBLE_FORMAT.test(ch)) {
      // A mark with nothing to sit on gets a column of its own (xterm.js, iTerm2, contour).
      w = !based && MARK.test(ch) ? 1 : 0;
    } else {
      w = codePointWidth(cp, ambiguousIsNarrow);
    }
    width += w;
    before = cp === VS16 ? 0 : w;
    if (w > 0 && cp !== ZWJ && cp !== ZWNJ && !MARK.test(ch)) based = true;
  }
  // Ink gives every cluster it draws a cell at least.
  return Math.max(width, 1);
}

/**
 * Terminal columns taken by `text`: the sum of its grapheme clusters' widths (clusterWidth). Escape
 * sequences take none. A drop-in for string-width's default export (same signature and options).
 */
export default function terminalWidth(text: string, options: WidthOptions = {}): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const narrow = options.ambiguousIsNarrow ?? true;
  let s = text;
  if (!options.countAnsiEscapeCodes && (s.includes('\x1b') || s.includes('\x9b')))
    s = stripVTControlCharacters(s.replace(OSC, ''));
  if (PLAIN_ASCII.test(s)) return s.length;
  let width = 0;
  // Without a code point that can join a neighbour, every code point is a cluster of its own: measured
  // one by one, without segmenting (most text, and long bodies).
  if (!MAY_JOIN.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const cp = s.codePointAt(i)!;
      if (cp > 0xffff) i++;
      width += codePointWidth(cp, narrow);
    }
    return width;
  }
  for (const { segment } of graphemes(s)) width += clusterWidth(segment, narrow);
  return width;
}
