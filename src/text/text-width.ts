/**
 * Cutting and padding by terminal columns, never splitting a wide character, a surrogate pair or a
 * grapheme cluster. The widths are terminal-width.ts's: the measure Ink lays out its boxes with too (the
 * build aliases `string-width` to it), so a row we cut to N columns is N columns to Ink and, whatever
 * the terminal, at most N on the screen.
 */
import terminalWidth, { clusterWidth, codePointWidth } from './terminal-width';
import { graphemes, MAY_JOIN } from './graphemes';

export { clusterWidth };

// Printable ASCII only: the common case, measured without segmenting.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Terminal columns taken by `s` (wide CJK/emoji count 2, combining marks 0). Expects safe text. */
export function textWidth(s: string): number {
  return terminalWidth(s);
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
  } else if (!MAY_JOIN.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const cp = s.codePointAt(i) as number;
      starts.push(i);
      widths.push(codePointWidth(cp));
      if (cp > 0xffff) i++;
    }
  } else {
    for (const { segment, index } of graphemes(s)) {
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
