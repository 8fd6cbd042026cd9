/**
 * A terminal screen as plain data: every cell's character, width, colours and attributes, read from a
 * headless xterm's buffer. The documentation's pictures are drawn from it (svg.ts) and its text is the
 * documentation's text captures, so both show the same screen.
 */
import type { Terminal } from '@xterm/headless';

/** `d` the terminal's default colour, `p<n>` palette entry n (0-255), `#rrggbb` a true colour. */
export type Colour = string;

export interface Cell {
  /** The character(s) drawn in the cell; ' ' for an empty one. */
  ch: string;
  /** 1, or 2 for a wide character (its right half has no cell of its own here). */
  width: 1 | 2;
  fg: Colour;
  bg: Colour;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  strike: boolean;
  invisible: boolean;
}

export interface Grid {
  cols: number;
  rows: number;
  /** One array of cells per row; each row's widths add up to `cols`. */
  lines: Cell[][];
}

function colour(mode: 'fg' | 'bg', cell: import('@xterm/headless').IBufferCell): Colour {
  const [isDefault, isRgb, value] =
    mode === 'fg'
      ? [cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor()]
      : [cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor()];
  if (isDefault) return 'd';
  if (isRgb) return `#${value.toString(16).padStart(6, '0')}`;
  return `p${value}`;
}

/** The visible screen of `term` (flush its pending writes first). */
export function readGrid(term: Terminal): Grid {
  const buffer = term.buffer.active;
  const scratch = buffer.getNullCell();
  const lines: Cell[][] = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const cells: Cell[] = [];
    for (let x = 0; x < term.cols; x++) {
      const cell = line?.getCell(x, scratch);
      if (!cell) {
        cells.push(blank());
        continue;
      }
      const width = cell.getWidth();
      // The right half of a wide character: drawn by the cell before it.
      if (width === 0) continue;
      cells.push({
        ch: cell.getChars() || ' ',
        width: width === 2 ? 2 : 1,
        fg: colour('fg', cell),
        bg: colour('bg', cell),
        bold: cell.isBold() !== 0,
        dim: cell.isDim() !== 0,
        italic: cell.isItalic() !== 0,
        underline: cell.isUnderline() !== 0,
        inverse: cell.isInverse() !== 0,
        strike: cell.isStrikethrough() !== 0,
        invisible: cell.isInvisible() !== 0,
      });
    }
    lines.push(cells);
  }
  return { cols: term.cols, rows: term.rows, lines };
}

function blank(): Cell {
  return {
    ch: ' ',
    width: 1,
    fg: 'd',
    bg: 'd',
    bold: false,
    dim: false,
    italic: false,
    underline: false,
    inverse: false,
    strike: false,
    invisible: false,
  };
}

/** The screen as text: one line per row, trailing spaces trimmed, trailing empty rows dropped. */
export function gridText(grid: Grid): string {
  const rows = grid.lines.map((cells) =>
    cells
      .map((c) => c.ch)
      .join('')
      .trimEnd(),
  );
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  return rows.join('\n');
}

/**
 * `grid` with every `from` in its text replaced by `to`, cell for cell (the two must be as long, and
 * narrow characters only): for what differs from machine to machine and not from build to build.
 */
export function replaceText(grid: Grid, from: string, to: string): Grid {
  if (from.length !== to.length || /[^\x20-\x7e]/.test(from + to))
    throw new Error(`cannot put "${to}" in the place of "${from}"`);
  const lines = grid.lines.map((cells) => {
    const text = cells.map((c) => (c.width === 1 && c.ch.length === 1 ? c.ch : '\0')).join('');
    const out = cells.map((c) => ({ ...c }));
    for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + from.length)) {
      for (let i = 0; i < to.length; i++) out[at + i]!.ch = to[i]!;
    }
    return out;
  });
  return { ...grid, lines };
}
