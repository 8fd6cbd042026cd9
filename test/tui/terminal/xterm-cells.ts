/**
 * A headless xterm for the diff writer's tests, and its screen read cell by cell: the character and every
 * attribute a cell can carry, so two screens compare as a person would see them (and a colour or an
 * inverse left behind shows).
 */
import { createRequire } from 'node:module';
import type { Terminal as XTerm } from '@xterm/headless';

const require = createRequire(import.meta.url);
// @xterm/headless names an ESM build it does not ship; its CommonJS main is the one that exists.
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

/** A terminal of `cols` x `rows`. */
export function terminal(cols = 80, rows = 24): XTerm {
  // convertEol: a pty turns each newline into CR LF (ONLCR); Ink counts on it.
  return new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0, convertEol: true });
}

/** Writes `data` and resolves once the terminal has parsed it. */
export function feed(term: XTerm, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** Every cell of the screen as text: character, width, colours and attributes; plus the cursor. */
export function cells(term: XTerm): string[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const out: string[] = [];
    for (let x = 0; line && x < term.cols; x++) {
      line.getCell(x, cell);
      const attrs = [
        cell.isBold() && 'b',
        cell.isDim() && 'd',
        cell.isItalic() && 'i',
        cell.isUnderline() && 'u',
        cell.isInverse() && 'v',
        cell.isStrikethrough() && 's',
      ]
        .filter(Boolean)
        .join('');
      const fg = cell.isFgDefault() ? '' : `${cell.getFgColorMode()}:${cell.getFgColor()}`;
      const bg = cell.isBgDefault() ? '' : `${cell.getBgColorMode()}:${cell.getBgColor()}`;
      out.push(`${cell.getChars() || ' '}${cell.getWidth()}${attrs}/${fg}/${bg}`);
    }
    rows.push(out.join('|'));
  }
  rows.push(`cursor ${buffer.cursorX},${buffer.cursorY}`);
  return rows;
}

/** The screen as plain text, for failure messages. */
export function text(term: XTerm): string {
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  return rows.join('\n');
}
