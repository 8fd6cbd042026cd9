/**
 * Wrapping by terminal columns. html-to-text wraps by UTF-16 length, which lets a line of CJK text run
 * to twice the screen width; plain-text bodies are not wrapped at all. Both go through here so that no
 * line of a rendered body is wider than the viewer, whatever script or emoji it holds.
 */

import { clusterStops, textWidth } from './text-width';

const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/**
 * Wraps every line of `text` to at most `width` columns. Existing line breaks are kept; a long line
 * breaks at its last space that fits, and a word longer than the width (a URL, a token) is cut
 * between grapheme clusters, never inside a wide character.
 */
export function wrapText(text: string, width: number, options: { breakAtSpaces?: boolean } = {}): string {
  const atSpaces = options.breakAtSpaces ?? true;
  const cols = Math.max(1, Math.floor(width));
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (PLAIN_ASCII.test(line) ? line.length <= cols : textWidth(line) <= cols) {
      out.push(line);
      continue;
    }
    if (PLAIN_ASCII.test(line)) wrapAscii(line, cols, atSpaces, out);
    else wrapLine(line, cols, atSpaces, out);
  }
  return out.join('\n');
}

/** wrapLine for printable ASCII, on string indices: the bulk of long plain-text bodies. */
function wrapAscii(line: string, cols: number, atSpaces: boolean, out: string[]): void {
  let start = 0;
  while (line.length - start > cols) {
    let firstWord = start;
    while (line[firstWord] === ' ') firstWord++;
    let breakAt = -1;
    if (atSpaces) {
      breakAt = line[start + cols] === ' ' ? start + cols : line.lastIndexOf(' ', start + cols - 1);
      if (breakAt <= firstWord) breakAt = -1;
    }
    if (breakAt > 0) {
      out.push(line.slice(start, breakAt).trimEnd());
      start = breakAt;
    } else {
      out.push(line.slice(start, start + cols));
      start += cols;
    }
    while (line[start] === ' ') start++;
  }
  if (start < line.length) out.push(line.slice(start));
}

/** Appends the wrapped pieces of one over-wide line to `out`; `atSpaces` false cuts at the width only. */
function wrapLine(line: string, cols: number, atSpaces: boolean, out: string[]): void {
  const { starts, widths } = clusterStops(line);
  const count = starts.length;
  const at = (i: number): number => (i < count ? (starts[i] as number) : line.length);
  const isSpace = (i: number): boolean => i < count && line.charCodeAt(starts[i] as number) === 32;
  let start = 0;
  // Indentation is kept on the first piece only; continuation pieces start at the first word.
  while (start < count) {
    let used = 0;
    let end = start;
    while (end < count && used + (widths[end] as number) <= cols) used += widths[end++] as number;
    if (end >= count) {
      out.push(line.slice(at(start)));
      return;
    }
    if (end === start) end = start + 1; // a cluster wider than the screen: show it alone
    let firstWord = start;
    while (firstWord < end && isSpace(firstWord)) firstWord++;
    let breakAt = -1;
    if (atSpaces) {
      if (isSpace(end)) breakAt = end;
      else for (let i = end - 1; i > firstWord && breakAt < 0; i--) if (isSpace(i)) breakAt = i;
    }
    if (breakAt > firstWord) {
      out.push(line.slice(at(start), at(breakAt)).trimEnd());
      start = breakAt;
    } else {
      out.push(line.slice(at(start), at(end)));
      start = end;
    }
    while (isSpace(start)) start++;
  }
}
