/**
 * The bytes that turn one frame on the terminal into the next: only the cells that changed. A line whose
 * cells can be placed by column (line-cells.ts) gets its changed span written (from its first changed
 * cell to its last, styles set as they go, the rest of the line erased when the new one is shorter); any
 * other changed line is erased and written whole; an unchanged line is skipped. The cursor is where Ink
 * leaves it after a frame, at the start of the line below the frame, before and after these bytes; every
 * move is relative to it, so the frame may start anywhere on the screen.
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

/**
 * The bytes from frame `before` (its lines, as on the terminal) to `after`, or null when the two differ in
 * height (the caller writes the frame whole then). '' when nothing changed.
 */
export function frameDiff(before: readonly string[], after: readonly string[]): string | null {
  if (before.length !== after.length) return null;
  const height = after.length;
  let out = '';
  let row = height; // the cursor's line: the one below the frame
  for (let i = 0; i < height; i++) {
    if (before[i] === after[i]) continue;
    const update = lineUpdate(before[i]!, after[i]!);
    if (!update) continue;
    out += row > i ? `${CSI}${row - i}A` : `${CSI}${i - row}B`;
    out += update.column === 0 ? '\r' : `${CSI}${update.column + 1}G`;
    out += update.bytes;
    row = i;
  }
  if (out === '') return '';
  return `${out}${CSI}${height - row}B\r`;
}
