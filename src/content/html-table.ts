/**
 * HTML tables as text. Most tables in mail are layout (a column of blocks, a logo beside a heading,
 * tables within tables): those read best as their rows, one a line, cells apart. A simple data table
 * (an order's items and prices, a list of sign-ins: no table inside it, two rows or more, two columns
 * or more, no cell spanning rows) keeps its columns: each is as wide as its widest cell, measured in
 * terminal columns (so CJK and emoji line up), and when the table is wider than the viewer the widest
 * columns wrap their cells until it fits. Too many columns for the width to hold: rows, as for layout.
 *
 * html-to-text's own `dataTable` does the layout by UTF-16 length and never within a width, so the
 * layout here goes through its table API (openTable ... closeTable) with our own printer.
 */
import type { DomNode, FormatCallback } from 'html-to-text';
import { safeBlock } from '../text/safe-text';
import { textWidth } from '../text/text-width';
import { wrapText } from '../text/text-wrap';

/** Columns between two cells of a data table. */
const GAP = 2;
/** Narrowest a column is made before the table is given up as rows. */
const MIN_COLUMN = 6;
const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);

interface Cell {
  colspan: number;
  rowspan: number;
  text: string;
}

/** The rows of `table` (through thead, tbody, tfoot), or null when it is not a simple data table. */
function dataRows(table: DomNode): DomNode[][] | null {
  const rows: DomNode[][] = [];
  const sections = [table];
  while (sections.length > 0) {
    const parent = sections.shift()!;
    for (const child of parent.children ?? []) {
      if (child.type !== 'tag') continue;
      if (SECTIONS.has(child.name ?? '')) sections.push(child);
      else if (child.name === 'tr')
        rows.push((child.children ?? []).filter((c) => c.type === 'tag' && (c.name === 'td' || c.name === 'th')));
    }
  }
  if (rows.length < 2 || rows.filter((cells) => cells.length >= 2).length < 2) return null;
  for (const cells of rows) {
    for (const cell of cells) if (Number(cell.attribs?.rowspan ?? 1) > 1) return null;
  }
  // A table inside is layout. Walked with a stack of our own: nesting is bounded (html-depth.ts), but
  // there is no need to spend the call stack on it.
  const stack = [...rows.flat()];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    if (node.name === 'table') return null;
    stack.push(...(node.children ?? []));
  }
  return rows;
}

/** Columns of `cells` wrapped to `widths`, side by side, each line trimmed at its end. */
function sideBySide(cells: string[][], widths: number[]): string[] {
  const height = Math.max(1, ...cells.map((lines) => lines.length));
  const out: string[] = [];
  for (let y = 0; y < height; y++) {
    let line = '';
    cells.forEach((lines, x) => {
      const text = lines[y] ?? '';
      line += text + (x < cells.length - 1 ? ' '.repeat(Math.max(0, (widths[x] ?? 0) - textWidth(text)) + GAP) : '');
    });
    out.push(line.trimEnd());
  }
  return out;
}

/**
 * Column widths that fit `room` columns: each column its natural width if all fit, else the narrow
 * ones keep theirs and the wide ones share what is left equally. Null when a column would be narrower
 * than MIN_COLUMN.
 */
function fitWidths(natural: number[], room: number): number[] | null {
  const sum = natural.reduce((a, b) => a + b, 0);
  if (sum <= room) return natural;
  if (room < natural.length * MIN_COLUMN) return null;
  const widths = [...natural];
  let open = natural.map((_, i) => i);
  let left = room;
  // Water-filling: columns narrower than an equal share of what is left keep their width.
  for (;;) {
    const share = Math.floor(left / open.length);
    const narrow = open.filter((i) => (natural[i] ?? 0) <= share);
    if (narrow.length === 0) {
      for (const i of open) widths[i] = share;
      return widths;
    }
    for (const i of narrow) left -= natural[i] ?? 0;
    open = open.filter((i) => (natural[i] ?? 0) > share);
    if (open.length === 0) return widths;
  }
}

/** The rows of a data table as text within `width` columns, or the rows one a line when it cannot fit. */
export function layoutTable(rows: Cell[][], width: number): string {
  const texts = rows.map((cells) => cells.map((cell) => safeBlock(cell.text).trim()));
  const columns = Math.max(...texts.map((cells) => cells.length));
  // A row of one cell (a title, a cell spanning the table) is a line across the table.
  const gridded = texts.filter((cells) => cells.length > 1);
  const natural = Array.from({ length: columns }, (_, x) =>
    Math.max(1, ...gridded.map((cells) => Math.max(0, ...(cells[x] ?? '').split('\n').map(textWidth)))),
  );
  const widths = rows.some((cells) => cells.some((cell) => cell.colspan > 1 && cells.length > 1))
    ? null
    : fitWidths(natural, width - GAP * (columns - 1));
  if (!widths) return texts.map((cells) => cells.map((text) => text.replace(/\s*\n\s*/g, ' ')).join(' ')).join('\n');
  const lines: string[] = [];
  for (const cells of texts) {
    if (cells.length === 1) {
      lines.push(wrapText(cells[0] ?? '', width));
      continue;
    }
    lines.push(
      ...sideBySide(
        cells.map((text, x) => wrapText(text, widths[x] ?? width).split('\n')),
        widths,
      ),
    );
  }
  return lines.join('\n');
}

/**
 * The formatter for `table`: a data table through the table API and layoutTable at `width`, anything
 * else as rows (each `tr` a line, cells apart by a space, as the `tr` and `td` selectors say).
 */
export function tableFormatter(width: number): FormatCallback {
  return (elem, walk, builder, options) => {
    const leadingLineBreaks = options.leadingLineBreaks ?? 2;
    const trailingLineBreaks = options.trailingLineBreaks ?? 2;
    const rows = dataRows(elem);
    if (!rows) {
      builder.openBlock({ leadingLineBreaks });
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks });
      return;
    }
    builder.openTable();
    for (const cells of rows) {
      builder.openTableRow();
      for (const cell of cells) {
        builder.openTableCell();
        walk(cell.children, builder);
        builder.closeTableCell({ colspan: Number(cell.attribs?.colspan) || 1, rowspan: 1 });
      }
      builder.closeTableRow();
    }
    builder.closeTable({
      tableToString: (printed: Cell[][]) => layoutTable(printed, width),
      leadingLineBreaks,
      trailingLineBreaks,
    });
  };
}
