/**
 * The `?` help laid out for a terminal size: the keymap rows of a screen as lines of a keys column and a
 * description column, each wrapped inside its own column (a cut description hides what a key does), and
 * the window of those lines that fits, with a line saying what is above and below. Plain functions: the
 * help screen keeps the scroll position and draws.
 */
import { textWidth, truncateToWidth } from '../../text/text-width';
import { wrapText } from '../../text/text-wrap';
import { bindingsFor, helpRows, keysOf, type Command, type Screen } from '../keymap/keymap';

/** One drawn line: the keys ('' under the first line of a row) and a piece of the description. */
export interface HelpLine {
  keys: string;
  description: string;
}

export interface HelpLayout {
  /** Width of the keys column, gap included. */
  keyCols: number;
  lines: HelpLine[];
}

// The keys column is as wide as the widest keys (plus a gap) but never takes the description's room.
const MAX_KEY_COLS = 24;
const MIN_KEY_COLS = 6;

/** The help rows of `screen` wrapped to `columns`: every line at most `columns` wide. */
export function helpLayout(screen: Screen, columns: number, remote = false): HelpLayout {
  const rows = helpRows(screen, true, remote);
  const widest = Math.max(0, ...rows.map((r) => textWidth(r.keys)));
  const keyCols = Math.min(widest + 2, MAX_KEY_COLS, Math.max(MIN_KEY_COLS, Math.floor(columns / 3)));
  const descCols = Math.max(1, columns - keyCols);
  const lines: HelpLine[] = [];
  for (const row of rows) {
    // Keys wider than their column wrap at " / " like words, leaving at least one space of gap.
    const keys = wrapText(row.keys, Math.max(1, keyCols - 1)).split('\n');
    const description = wrapText(row.description, descCols).split('\n');
    for (let i = 0; i < Math.max(keys.length, description.length); i++) {
      lines.push({ keys: keys[i] ?? '', description: description[i] ?? '' });
    }
  }
  return { keyCols, lines };
}

export interface HelpWindow {
  /** First line shown. */
  top: number;
  /** Number of lines shown. */
  size: number;
  /** Whether the blank line under the title fits. */
  spacer: boolean;
  /** The "↑ 3 above · ↓ 4 more: …" line, or null when everything is shown. */
  more: string | null;
}

// Below this many rows the blank line under the title goes to the keys.
const SPACER_MIN_ROWS = 10;

/** Which of `total` lines fit in `rows` (title included) when scrolled to `scroll`, clamped. */
export function helpWindow(total: number, rows: number, scroll: number, columns: number): HelpWindow {
  const spacer = rows >= SPACER_MIN_ROWS;
  const room = Math.max(1, rows - 1 - (spacer ? 1 : 0));
  if (total <= room) return { top: 0, size: total, spacer, more: null };
  const size = Math.max(1, room - 1);
  const top = Math.max(0, Math.min(scroll, total - size));
  const below = total - top - size;
  const where = [top > 0 ? `↑ ${top} above` : '', below > 0 ? `↓ ${below} more` : ''].filter(Boolean).join(' · ');
  return { top, size, spacer, more: truncateToWidth(`${where}: ${scrollHint()}`, columns) };
}

/** The largest useful scroll position for `total` lines in `rows`. */
export function helpMaxScroll(total: number, rows: number): number {
  const w = helpWindow(total, rows, Number.MAX_SAFE_INTEGER, 1);
  return w.top;
}

const firstKey = (command: Command): string => {
  const binding = bindingsFor('help').find((b) => b.command === command);
  return binding ? (keysOf(binding, 'help')[0] ?? '') : '';
};

/** "j/k scroll · ? or Esc closes", from the keymap rows of the help screen. */
export function scrollHint(): string {
  return `${firstKey('down')}/${firstKey('up')} scroll · ${firstKey('help')} or ${firstKey('back')} closes`;
}
