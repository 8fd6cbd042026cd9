/**
 * The bytes that turn one frame on the terminal into the next: only the cells that changed. A line whose
 * cells can be placed by column (line-cells.ts) gets its changed span written (from its first changed
 * cell to its last, styles set as they go, the rest of the line erased when the new one is shorter); any
 * other changed line is erased and written whole; an unchanged line is skipped. Every move is relative to
 * the cursor (the frame may start anywhere on the screen), and no move is a bare CR.
 */
import { changeStyle, lineCells, type Cell } from './line-cells';

const CSI = '\x1b[';
// What a column beyond a line's end holds: Ink trims trailing blanks, and an erased cell looks like this.
const BLANK: Cell = { ch: ' ', style: '' };

const sameCell = (a: Cell, b: Cell) => a.ch === b.ch && a.style === b.style;

/** Where on its line an update starts and what it writes there (ending in the default style). */
interface LineUpdate {
  column: number;
  bytes: string;
}

/** The update of one line from `before` to `after`; null when they look the same. */
export function lineUpdate(before: string, after: string): LineUpdate | null {
  const a = lineCells(before);
  const b = lineCells(after);
  // Erased first: a wide character or a colour this does not model may leave anything behind it.
  if (!a || !b) return { column: 0, bytes: `${CSI}2K${after}` };
  const at = (cells: Cell[], i: number) => cells[i] ?? BLANK;
  const end = Math.max(a.length, b.length);
  let first = 0;
  while (first < end && sameCell(at(a, first), at(b, first))) first++;
  if (first === end) return null;
  let last = end - 1;
  while (last > first && sameCell(at(a, last), at(b, last))) last--;
  let bytes = '';
  let style = '';
  const written = Math.min(last, b.length - 1);
  for (let i = first; i <= written; i++) {
    const cell = b[i]!;
    bytes += changeStyle(style, cell.style) + cell.ch;
    style = cell.style;
  }
  bytes += changeStyle(style, '');
  // The new line ends before what changed does: the old cells beyond its end go.
  if (last >= b.length) bytes += `${CSI}K`;
  return { column: first, bytes };
}

/** The bytes of a frame diff, and the line the cursor is left at (column 1). */
export interface FrameUpdate {
  bytes: string;
  /** The cursor's line afterwards, 0 for the frame's first (the frame's height: the line below it). */
  row: number;
}

/**
 * The bytes from frame `before` (its lines, as on the terminal) to `after`, the cursor starting at column
 * 1 of line `row` (the frame's height: the line below it, where Ink leaves it); or null when the two
 * differ in height (the caller writes the frame whole then). Each changed line's update ends with a
 * newline, as Ink ends its lines, so the cursor waits at the start of the line below the last one
 * changed: the next diff starts from there, with no trip to the bottom and back.
 */
export function frameDiff(before: readonly string[], after: readonly string[], row = after.length): FrameUpdate | null {
  if (before.length !== after.length) return null;
  let out = '';
  for (let i = 0; i < after.length; i++) {
    if (before[i] === after[i]) continue;
    const update = lineUpdate(before[i]!, after[i]!);
    if (!update) continue;
    out += moveTo(row, i);
    // Never a bare CR (what hostile text would overwrite a line with): column moves are CSI G, as Ink's.
    out += update.column === 0 ? `${CSI}G` : `${CSI}${update.column + 1}G`;
    out += `${update.bytes}\n`;
    row = i + 1;
  }
  return { bytes: out, row };
}

/** From column 1 of line `from` to column 1 of line `to`, relatively (newlines for a line or two down). */
export function moveTo(from: number, to: number): string {
  if (to < from) return `${CSI}${from - to}A`;
  return to - from <= 2 ? '\n'.repeat(to - from) : `${CSI}${to - from}B`;
}
