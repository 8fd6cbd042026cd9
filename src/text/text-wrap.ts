/**
 * Wrapping by terminal columns. html-to-text wraps by UTF-16 length and only at spaces, which lets a
 * line of CJK text run to twice the screen width and moves a whole unspaced Japanese sentence to the
 * next line; plain-text bodies are not wrapped at all. So html-to-text leaves paragraphs whole and both
 * go through here: no line is wider than the viewer, whatever script or emoji it holds.
 *
 * Break opportunities are a small part of UAX #14: after spaces, and between or beside wide characters
 * (ideographs, kana, Hangul syllables, fullwidth forms, emoji), as CJK text is broken anywhere; but never
 * before closing punctuation or a small kana, nor after an opening bracket (Japanese kinsoku shori),
 * and never inside a grapheme cluster. Latin words and URLs break only at spaces, or are cut when
 * longer than the width.
 */

import { clusterStops, textWidth } from './text-width';

const PLAIN_ASCII = /^[\x20-\x7e]*$/;
/** What stands for a grapheme cluster too wide for the whole line. */
export const TOO_WIDE = '…';

// May not start a line: closing brackets and punctuation, prolonged sound mark, iteration marks, small
// kana (JIS X 4051 line-start prohibited), their half-width forms, and ASCII closers after a wide char.
const NO_START = new Set(
  '、。，．・：；！？）］｝」』】〕〉》〙〗〞〟ー〜～ゝゞヽヾ々〻゛゜‥…' +
    'ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ' +
    '｡､｣･ｧｨｩｪｫｬｭｮｯｰ' +
    ')]},.!?:;%’”',
);
// May not end a line: opening brackets and quotes.
const NO_END = new Set('（［｛「『【〔〈《〘〖〝｢([{‘“');

export interface WrapOptions {
  /** False cuts at the width only, as for a URL that should stay on its "[n]" line. Default true. */
  breakAtSpaces?: boolean;
  /**
   * Continuation lines repeat the line's quote markers and indent under its list bullet (html-to-text's
   * "> " and " * ", " 1. "), as html-to-text's own wrapping did. Off for plain text, whose leading
   * spaces are the sender's, kept on the first piece only.
   */
  hang?: boolean;
}

// Leading quote markers and indentation, then an optional list bullet followed by spaces.
const HANG = /^((?: *>)* *)((?:[*•·+-]|\d{1,3}[.)]|[a-zA-Z][.)]|[ivxlcdm]{1,6}[.)]|[IVXLCDM]{1,6}[.)]) +)?/;

/** The prefix continuation lines of `line` get, and where its first word starts. */
function hangOf(line: string, cols: number): { hang: string; body: number } {
  const m = HANG.exec(line);
  const quote = m?.[1] ?? '';
  const bullet = m?.[2] ?? '';
  const body = quote.length + bullet.length;
  // Only when the line has words after it and the prefix leaves room for them.
  if (body === 0 || body >= line.length || body > cols / 2) return { hang: '', body: 0 };
  return { hang: quote + ' '.repeat(bullet.length), body };
}

/**
 * Wraps every line of `text` to at most `width` columns. Existing line breaks are kept; a long line
 * breaks at its last opportunity that fits (a space, or beside a wide character), and a word longer
 * than the width (a URL, a token) is cut between grapheme clusters, never inside a wide character.
 */
export function wrapText(text: string, width: number, options: WrapOptions = {}): string {
  const atSpaces = options.breakAtSpaces ?? true;
  const cols = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const ascii = PLAIN_ASCII.test(line);
    if (ascii ? line.length <= cols : textWidth(line) <= cols) {
      out.push(line);
      continue;
    }
    const { hang, body } = options.hang && atSpaces ? hangOf(line, cols) : { hang: '', body: 0 };
    if (ascii) wrapAscii(line, cols, atSpaces, hang, body, out);
    else wrapLine(withoutTooWide(line, cols), cols, atSpaces, hang, body, out);
  }
  return out.join('\n');
}

/**
 * `line` with each grapheme cluster wider than `cols` replaced by TOO_WIDE: a chain of emoji joined by
 * ZWJs is one cluster, as wide as some terminals draw all of them (docs/architecture.md, "Cell widths"),
 * and no line of `cols` could show it whole without the terminal wrapping its row.
 */
function withoutTooWide(line: string, cols: number): string {
  const { starts, widths } = clusterStops(line);
  if (widths.every((w) => w <= cols)) return line;
  return starts
    .map((start, i) => ((widths[i] as number) > cols ? TOO_WIDE : line.slice(start, starts[i + 1] ?? line.length)))
    .join('');
}

/** wrapLine for printable ASCII, on string indices: the bulk of long plain-text bodies. */
function wrapAscii(line: string, cols: number, atSpaces: boolean, hang: string, body: number, out: string[]): void {
  let start = 0;
  let room = cols;
  let prefix = '';
  while (line.length - start > room) {
    let firstWord = Math.max(start, body);
    while (line[firstWord] === ' ') firstWord++;
    let breakAt = -1;
    if (atSpaces) {
      // Looked for within this piece only: lastIndexOf would scan back to the line's start every time,
      // quadratic on a long line without spaces (a base64 blob, a URL, CJK text has its own path).
      breakAt = start + room;
      while (breakAt > firstWord && line.charCodeAt(breakAt) !== 32) breakAt--;
      if (breakAt <= firstWord) breakAt = -1;
    }
    if (breakAt > 0) {
      out.push(prefix + line.slice(start, breakAt).trimEnd());
      start = breakAt;
    } else {
      out.push(prefix + line.slice(start, start + room));
      start += room;
    }
    while (line[start] === ' ') start++;
    prefix = hang;
    room = cols - hang.length;
  }
  if (start < line.length) out.push(prefix + line.slice(start));
}

/** Appends the wrapped pieces of one over-wide line to `out`; `atSpaces` false cuts at the width only. */
function wrapLine(line: string, cols: number, atSpaces: boolean, hang: string, body: number, out: string[]): void {
  const { starts, widths } = clusterStops(line);
  const count = starts.length;
  const at = (i: number): number => (i < count ? (starts[i] as number) : line.length);
  const isSpace = (i: number): boolean => i < count && line.charCodeAt(starts[i] as number) === 32;
  const char = (i: number): string => line[starts[i] as number] as string;
  // A line may break before cluster b: after a space, or beside a wide character unless kinsoku forbids.
  const canBreak = (b: number): boolean => {
    if (isSpace(b) || isSpace(b - 1)) return true;
    if ((widths[b] as number) < 2 && (widths[b - 1] as number) < 2) return false;
    return !NO_START.has(char(b)) && !NO_END.has(char(b - 1));
  };
  let start = 0;
  let room = cols;
  let prefix = '';
  // Indentation is kept on the first piece only (or replaced by the hang); a break never falls inside it.
  let firstBody = 0;
  while (firstBody < count && at(firstBody) < body) firstBody++;
  while (start < count) {
    let used = 0;
    let end = start;
    while (end < count && used + (widths[end] as number) <= room) used += widths[end++] as number;
    if (end >= count) {
      out.push(prefix + line.slice(at(start)));
      return;
    }
    if (end === start) {
      // Wider than what the hang leaves (never than the line: wrapText replaced those): alone, unhung.
      out.push(line.slice(at(start), at(start + 1)));
      start += 1;
      while (isSpace(start)) start++;
      continue;
    }
    let firstWord = Math.max(start, firstBody);
    while (firstWord < end && isSpace(firstWord)) firstWord++;
    let breakAt = -1;
    if (atSpaces) for (let b = end; b > firstWord && breakAt < 0; b--) if (canBreak(b)) breakAt = b;
    if (breakAt < 0) breakAt = end;
    out.push(prefix + line.slice(at(start), at(breakAt)).trimEnd());
    start = breakAt;
    while (isSpace(start)) start++;
    prefix = hang;
    room = Math.max(1, cols - hang.length);
  }
}
