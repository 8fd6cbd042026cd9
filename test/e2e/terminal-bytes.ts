/**
 * Reading what a program wrote to its terminal as tokens: every escape sequence, control character and
 * bidi control, in order. Tests compare the tokens the app writes around hostile mail with its own
 * vocabulary (what Ink draws with, plus what it wrote for a benign mail), so a leaked sequence shows up
 * even when it looks like one the app could have sent.
 */

/** Ink's clear screen (ansi-escapes clearTerminal): the only legitimate ESC[2J, always in this triple. */
export const CLEAR_TERMINAL = '\x1b[2J\x1b[3J\x1b[H';

// Order matters: the clear triple before a bare CSI; string sequences (OSC, DCS, APC, PM, SOS) before a
// lone ESC. A string without its terminator runs to the end: a leak is still caught, as one long token.
const TOKEN = new RegExp(
  [
    literal(CLEAR_TERMINAL),
    '\\x1b\\[[0-?]*[ -/]*[@-~]', // CSI
    '\\x1b\\][\\s\\S]*?(?:\\x07|\\x1b\\\\|$)', // OSC, ended by BEL or ST
    '\\x1b[PX^_][\\s\\S]*?(?:\\x1b\\\\|$)', // DCS, SOS, PM, APC
    '\\x1b[\\s\\S]?', // any other escape (or a lone one)
    '[\\x00-\\x09\\x0b-\\x1f\\x7f]', // C0 but newline, and DEL
    '[\\u0080-\\u009f]', // C1
    '[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]', // bidi marks, embeddings, overrides, isolates
  ].join('|'),
  'g',
);

/** A pattern source that matches `s` literally (named so as not to shadow the global escape()). */
function literal(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&').replace(/\x1b/g, '\\x1b');
}

/** Every control token of `text`, in order (repeats kept). */
export function controlTokens(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((m) => m[0]);
}

/** The distinct tokens of `text`. */
export function tokenSet(text: string): Set<string> {
  return new Set(controlTokens(text));
}

/** A token made readable for a failure message: ESC[2J, <BEL>, <U+202E>. */
export function showToken(token: string): string {
  return [...token]
    .map((c) => {
      const code = c.codePointAt(0)!;
      if (code === 0x1b) return 'ESC';
      if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f) || code > 0x7e) {
        return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
      }
      return c;
    })
    .join('');
}

/**
 * What Ink and the app draw with in any state: relative cursor moves, erase line, column 1, cursor
 * show/hide, synchronized output, the alternate screen, carriage return (the pty adds it to newlines),
 * the clear triple, and text attributes that are not colour (bold, dim, italic, underline, inverse,
 * strike-through and their resets, default colours). Colours come only from the benign baseline.
 */
export function isInkVocabulary(token: string): boolean {
  if (token === '\r' || token === CLEAR_TERMINAL) return true;
  if (/^\x1b\[\d*[ABCDEG]$/.test(token)) return true;
  if (/^\x1b\[[012]?K$/.test(token)) return true;
  if (/^\x1b\[\?(?:25|2026|1049)[hl]$/.test(token)) return true;
  return /^\x1b\[(?:1|2|3|4|7|9|22|23|24|27|29|39|49)m$/.test(token);
}

/** True for an SGR sequence that sets a foreground or background colour (any palette). */
export function isColourSgr(token: string): boolean {
  const m = /^\x1b\[([\d;:]*)m$/.exec(token);
  if (!m) return false;
  return m[1]!.split(/[;:]/).some((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p));
}

/** Tokens of `text` that are neither Ink's vocabulary nor in `baseline`, with counts. */
export function unexpectedTokens(text: string, baseline: Set<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const token of controlTokens(text)) {
    if (isInkVocabulary(token) || baseline.has(token)) continue;
    out.set(token, (out.get(token) ?? 0) + 1);
  }
  return out;
}

/** Occurrences of `needle` in `haystack`. */
export function countOf(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}
