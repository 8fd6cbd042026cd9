/**
 * Draws a terminal screen (grid.ts) as an SVG picture with the terminal's colours: xterm.js's default
 * palette on a dark background, bold drawn bright as xterm draws it, inverse, dim, underline. Each run
 * of cells with one style is one <text> stretched to exactly its cells' width, so columns line up in
 * whatever monospace font the viewer has. The output depends on the grid alone (no date, no random id),
 * so a picture is stale exactly when the screen it shows changed.
 */
import type { Cell, Colour, Grid } from './grid';

const CELL_W = 9;
const CELL_H = 19;
const FONT_SIZE = 15;
/** Where the glyphs sit in a row: their baseline. */
const BASELINE = 14;
const PAD = 14;
const FOREGROUND = '#d3d7cf';
const BACKGROUND = '#1e1f22';

/** xterm.js's default ANSI colours (0-15). */
const ANSI = [
  '#2e3436',
  '#cc0000',
  '#4e9a06',
  '#c4a000',
  '#3465a4',
  '#75507b',
  '#06989a',
  '#d3d7cf',
  '#555753',
  '#ef2929',
  '#8ae234',
  '#fce94f',
  '#729fcf',
  '#ad7fa8',
  '#34e2e2',
  '#eeeeec',
];

const hex = (n: number) => n.toString(16).padStart(2, '0');

/** The 256-colour palette: the 16 above, the 6x6x6 cube, then 24 greys (as xterm computes them). */
function paletteColour(index: number): string {
  if (index < 16) return ANSI[index]!;
  if (index < 232) {
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    const i = index - 16;
    return `#${hex(level(Math.floor(i / 36)))}${hex(level(Math.floor(i / 6) % 6))}${hex(level(i % 6))}`;
  }
  const grey = 8 + (index - 232) * 10;
  return `#${hex(grey)}${hex(grey)}${hex(grey)}`;
}

function resolve(colour: Colour, fallback: string, bold = false): string {
  if (colour === 'd') return fallback;
  if (colour.startsWith('#')) return colour;
  const index = Number(colour.slice(1));
  // xterm draws bold text in the first eight colours with their bright versions.
  return paletteColour(bold && index < 8 ? index + 8 : index);
}

interface Style {
  fill: string;
  back: string | undefined;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  invisible: boolean;
}

function styleOf(cell: Cell): Style {
  let fill = resolve(cell.fg, FOREGROUND, cell.bold);
  let back = cell.bg === 'd' ? undefined : resolve(cell.bg, BACKGROUND);
  if (cell.inverse) [fill, back] = [back ?? BACKGROUND, fill];
  return {
    fill,
    back,
    bold: cell.bold,
    dim: cell.dim,
    italic: cell.italic,
    underline: cell.underline,
    strike: cell.strike,
    invisible: cell.invisible,
  };
}

const sameStyle = (a: Style, b: Style) =>
  a.fill === b.fill &&
  a.back === b.back &&
  a.bold === b.bold &&
  a.dim === b.dim &&
  a.italic === b.italic &&
  a.underline === b.underline &&
  a.strike === b.strike &&
  a.invisible === b.invisible;

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface Run {
  col: number;
  /** Columns the run covers. */
  cells: number;
  /** What each of its cells holds (a cell may hold more than one UTF-16 unit). */
  chars: string[];
  style: Style;
  wide: boolean;
}

/** A row's cells cut into runs of one style; a wide character is a run of its own. */
function runsOf(cells: Cell[]): Run[] {
  const runs: Run[] = [];
  let col = 0;
  for (const cell of cells) {
    const style = styleOf(cell);
    const last = runs[runs.length - 1];
    const wide = cell.width === 2;
    if (last && !wide && !last.wide && sameStyle(last.style, style)) {
      last.cells += 1;
      last.chars.push(cell.ch);
    } else {
      runs.push({ col, cells: cell.width, chars: [cell.ch], style, wide });
    }
    col += cell.width;
  }
  return runs;
}

function textAttributes(style: Style): string {
  const out = [`fill="${style.fill}"`];
  if (style.bold) out.push('font-weight="bold"');
  if (style.italic) out.push('font-style="italic"');
  if (style.dim) out.push('opacity="0.5"');
  const lines = [style.underline ? 'underline' : '', style.strike ? 'line-through' : ''].filter(Boolean);
  if (lines.length > 0) out.push(`text-decoration="${lines.join(' ')}"`);
  return out.join(' ');
}

/** The screen as an SVG document; `title` is its accessible name. */
export function gridToSvg(grid: Grid, title: string): string {
  const width = grid.cols * CELL_W + 2 * PAD;
  const height = grid.rows * CELL_H + 2 * PAD;
  const backs: string[] = [];
  const texts: string[] = [];
  grid.lines.forEach((cells, row) => {
    const y = PAD + row * CELL_H;
    for (const run of runsOf(cells)) {
      const x = PAD + run.col * CELL_W;
      const w = run.cells * CELL_W;
      if (run.style.back)
        backs.push(`<rect x="${x}" y="${y}" width="${w}" height="${CELL_H}" fill="${run.style.back}"/>`);
      if (run.style.invisible) continue;
      // Blank cells at either end of a run draw nothing unless a line goes through or under them.
      const keep = run.style.underline || run.style.strike || run.wide;
      let first = 0;
      let end = run.chars.length;
      while (!keep && first < end && run.chars[first] === ' ') first++;
      while (!keep && end > first && run.chars[end - 1] === ' ') end--;
      if (first === end) continue;
      const text = run.chars.slice(first, end).join('');
      const cells = run.wide ? run.cells : end - first;
      texts.push(
        `<text x="${x + first * CELL_W}" y="${y + BASELINE}" textLength="${cells * CELL_W}" lengthAdjust="spacingAndGlyphs" ${textAttributes(run.style)}>${escapeXml(text)}</text>`,
      );
    }
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" rx="8" fill="${BACKGROUND}"/>`,
    ...backs,
    `<g font-family="'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace" font-size="${FONT_SIZE}" xml:space="preserve" style="white-space: pre">`,
    ...texts,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
