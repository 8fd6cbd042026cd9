/**
 * One line of an Ink frame as terminal cells: each column's character and its style, the style put in one
 * canonical form (the SGR parameters that give it, in a fixed order), so two frames compare cell by
 * cell however chalk happened to open and close their colours. Only what a diff can place by column is
 * read this way: printable characters whose width every terminal agrees on (ASCII, the Latin letters
 * that are not East Asian ambiguous, ✓ and ✗) and SGR sequences. A line with anything else (a wide,
 * ambiguous or combining character, an emoji, an SGR this does not model) comes back null, and the diff
 * rewrites it whole, as Ink would: a cluster terminals draw at different widths (docs/architecture.md,
 * "Cell widths") may then leave the line a few columns short on the screen, never shift a change.
 */
import { eastAsianWidthType } from 'get-east-asian-width';

/** One column: its character and the canonical SGR parameters of its style ('' for the default). */
export interface Cell {
  ch: string;
  style: string;
}

/** The style attributes an SGR sequence sets, by the parameter that turns each off. */
const ATTRIBUTE_ON: Record<number, number> = { 1: 22, 2: 22, 3: 23, 4: 24, 5: 25, 7: 27, 8: 28, 9: 29 };
const ATTRIBUTE_OFF = new Set([22, 23, 24, 25, 27, 28, 29]);

/**
 * True for a character a diff may place by column: one column wide on every terminal. That leaves out
 * East Asian "Ambiguous" characters (é, °, …, ─, arrows, curly quotes), which terminals set for CJK
 * locales draw two columns wide: a change placed by column after one would land short of where it is
 * drawn. A line holding one is rewritten whole, as Ink would.
 */
export function plainChar(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x20 && cp < 0x7f) return true;
  // Latin-1 and the Latin extensions, below the combining marks; not the soft hyphen (width 0 or 1).
  if (cp >= 0xa0 && cp < 0x300) return cp !== 0xad && eastAsianWidthType(cp) === 'neutral';
  return SYMBOLS.has(ch);
}

// The symbols the app draws itself beyond Latin-1 that are one column wide on every terminal (East
// Asian width "neutral"; most others it draws, such as … and ─, are ambiguous).
const SYMBOLS = new Set('✓✗'.split(''));

/** The SGR state as the list of its parts, in a fixed order: attributes, then foreground, then background. */
interface Style {
  attributes: Set<number>;
  fg: string;
  bg: string;
}

const plainStyle = (): Style => ({ attributes: new Set(), fg: '', bg: '' });

function styleKey(style: Style): string {
  const parts = [...style.attributes].sort((a, b) => a - b).map(String);
  if (style.fg) parts.push(style.fg);
  if (style.bg) parts.push(style.bg);
  return parts.join(';');
}

/** Applies one SGR parameter list to `style`; false when it holds something this does not model. */
function applySgr(style: Style, params: string): boolean {
  // Colons (underline styles, colour spaces) are a notation this does not model.
  if (params.includes(':')) return false;
  const p = params === '' ? [0] : params.split(';').map(Number);
  for (let i = 0; i < p.length; i++) {
    const n = p[i]!;
    if (!Number.isInteger(n)) return false;
    if (n === 0) {
      Object.assign(style, plainStyle());
    } else if (ATTRIBUTE_ON[n] !== undefined) {
      style.attributes.add(n);
    } else if (ATTRIBUTE_OFF.has(n)) {
      for (const [on, off] of Object.entries(ATTRIBUTE_ON)) if (off === n) style.attributes.delete(Number(on));
    } else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) {
      style.fg = String(n);
    } else if (n === 39) {
      style.fg = '';
    } else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) {
      style.bg = String(n);
    } else if (n === 49) {
      style.bg = '';
    } else if (n === 38 || n === 48) {
      // 38;5;N and 38;2;R;G;B (and the same for 48).
      const count = p[i + 1] === 5 ? 2 : p[i + 1] === 2 ? 4 : -1;
      if (count < 0 || i + count >= p.length) return false;
      const colour = p.slice(i, i + count + 1).join(';');
      if (n === 38) style.fg = colour;
      else style.bg = colour;
      i += count;
    } else {
      return false;
    }
  }
  return true;
}

// An SGR sequence: CSI, parameters, m.
const SGR = /^\x1b\[([0-9;:]*)m/;

/** The cells of `line`, or null when it holds what a column-placed diff must not touch (see above). */
export function lineCells(line: string): Cell[] | null {
  const cells: Cell[] = [];
  const style = plainStyle();
  let key = '';
  for (let i = 0; i < line.length; ) {
    const code = line.charCodeAt(i);
    if (code === 0x1b) {
      const sgr = SGR.exec(line.slice(i, i + 64));
      if (!sgr || !applySgr(style, sgr[1]!)) return null;
      key = styleKey(style);
      i += sgr[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    if (!plainChar(ch)) return null;
    cells.push({ ch, style: key });
    i += ch.length;
  }
  return cells;
}

/** A canonical style key taken apart: its attributes, and its colours ('' for the default). */
function parts(key: string): Style {
  const style = plainStyle();
  if (key !== '') applySgr(style, key);
  return style;
}

const sgr = (params: string) => `\x1b[${params}m`;

/**
 * The SGR sequences from the style `from` to `to`, one sequence per attribute or colour as chalk writes
 * them (what is turned off is closed by its own code, never by a reset of everything).
 */
export function changeStyle(from: string, to: string): string {
  if (from === to) return '';
  const a = parts(from);
  const b = parts(to);
  let out = '';
  const closed = new Set<number>();
  for (const n of a.attributes) {
    if (b.attributes.has(n)) continue;
    const off = ATTRIBUTE_ON[n]!;
    if (!closed.has(off)) out += sgr(String(off));
    closed.add(off);
  }
  if (a.fg !== b.fg) out += sgr(b.fg || '39');
  if (a.bg !== b.bg) out += sgr(b.bg || '49');
  // Opened: what `from` lacked, and what a shared close (22 ends bold and dim alike) took away.
  for (const n of [...b.attributes].sort((x, y) => x - y)) {
    if (!a.attributes.has(n) || closed.has(ATTRIBUTE_ON[n]!)) out += sgr(String(n));
  }
  return out;
}
