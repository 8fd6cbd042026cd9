/**
 * Search in a message as the viewer shows it: its lines (wrapped body, or source), already terminal-safe.
 * The pattern is literal text, never a regular expression (nothing typed can make the search slow), with
 * smart case as in vim and less: case-insensitive unless the pattern has a capital. A run of spaces in
 * the pattern matches any run of white space, line breaks included, so words the wrapping put on two
 * lines are still found. Matches are offsets in the lines joined by "\n", sorted, never overlapping.
 */

/** One match: [start, end) in the joined text. */
export interface Match {
  start: number;
  end: number;
}

export interface Matches {
  list: Match[];
  /** Offset in the joined text where each line starts. */
  lineStarts: number[];
  /** True when the search stopped at MAX_MATCHES. */
  capped: boolean;
}

/** More than anyone steps through with n; a pattern of one common letter in a huge message stops here. */
export const MAX_MATCHES = 10_000;

const SPECIAL = /[\\^$.*+?()[\]{}|/]/g;

/** True when the pattern makes the search case-sensitive (it has an upper-case letter). */
export const caseSensitive = (pattern: string): boolean => /\p{Lu}/u.test(pattern);

/** The search expression for `pattern`, or null for an empty one. */
export function searchExpression(pattern: string): RegExp | null {
  if (pattern === '') return null;
  const source = pattern.replace(SPECIAL, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(source, caseSensitive(pattern) ? 'gu' : 'giu');
}

/** Every match of `pattern` in `lines` (up to MAX_MATCHES). */
export function findMatches(lines: readonly string[], pattern: string): Matches {
  const lineStarts: number[] = [];
  let at = 0;
  for (const line of lines) {
    lineStarts.push(at);
    at += line.length + 1;
  }
  const list: Match[] = [];
  const expression = searchExpression(pattern);
  if (!expression) return { list, lineStarts, capped: false };
  const text = lines.join('\n');
  for (const m of text.matchAll(expression)) {
    if (m[0].length === 0) continue;
    if (list.length === MAX_MATCHES) return { list, lineStarts, capped: true };
    list.push({ start: m.index, end: m.index + m[0].length });
  }
  return { list, lineStarts, capped: false };
}

/** The line holding offset `offset` of the joined text. */
export function lineOf(matches: Matches, offset: number): number {
  const starts = matches.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the first match that starts on line `line` or after it (0 past the last: the search wraps). */
export function firstMatchFrom(matches: Matches, line: number): number {
  const from = matches.lineStarts[line] ?? Number.POSITIVE_INFINITY;
  const i = matches.list.findIndex((m) => m.start >= from);
  return Math.max(i, 0);
}

/** A piece of a line: its text and whether it is part of a match (and of the current one). */
export interface Segment {
  text: string;
  hit: 'none' | 'match' | 'current';
}

/**
 * Line `line` cut into pieces at the matches that touch it: substrings of the line, nothing added, so
 * a line that was terminal-safe stays so piece by piece. O(log n + matches on the line).
 */
export function lineSegments(matches: Matches, lines: readonly string[], line: number, current: number): Segment[] {
  const text = lines[line] ?? '';
  const start = matches.lineStarts[line] ?? 0;
  const end = start + text.length;
  const list = matches.list;
  // The first match that ends after this line's start.
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  const out: Segment[] = [];
  let pos = 0;
  for (let i = lo; i < list.length && list[i]!.start < end; i++) {
    const from = Math.max(0, list[i]!.start - start);
    const to = Math.min(text.length, list[i]!.end - start);
    if (to <= from) continue;
    if (from > pos) out.push({ text: text.slice(pos, from), hit: 'none' });
    out.push({ text: text.slice(from, to), hit: i === current ? 'current' : 'match' });
    pos = to;
  }
  if (pos < text.length || out.length === 0) out.push({ text: text.slice(pos), hit: 'none' });
  return out;
}
