import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { helpLayout, helpMaxScroll, helpWindow, scrollHint } from '../../../src/tui/widgets/help-layout';
import { helpRows, type Screen } from '../../../src/tui/keymap/keymap';

const SCREENS: Screen[] = ['picker', 'inbox', 'viewer', 'switch'];

describe('help layout', () => {
  it('wraps every description whole under its column, no line wider than the terminal (40 to 160 columns)', () => {
    for (const screen of SCREENS) {
      for (let columns = 40; columns <= 160; columns += 7) {
        const { keyCols, lines } = helpLayout(screen, columns);
        for (const line of lines) {
          expect(textWidth(line.keys)).toBeLessThan(keyCols);
          expect(keyCols + textWidth(line.description)).toBeLessThanOrEqual(columns);
        }
        const text = lines
          .map((l) => `${l.keys} ${l.description}`)
          .join(' ')
          .replace(/\s+/g, ' ');
        for (const row of helpRows(screen))
          expect(text).toContain(`${row.keys} ${row.description}`.replace(/\s+/g, ' '));
      }
    }
  });

  it('shows a window that fits the rows, says what is above and below, and clamps the scroll', () => {
    expect(helpWindow(5, 12, 0, 60)).toEqual({ top: 0, size: 5, spacer: true, more: null });
    // 30 lines in 12 rows: title, blank, 9 lines, the "more" line.
    expect(helpWindow(30, 12, 0, 60)).toEqual({ top: 0, size: 9, spacer: true, more: `↓ 21 more: ${scrollHint()}` });
    expect(helpWindow(30, 12, 5, 60).more).toBe(`↑ 5 above · ↓ 16 more: ${scrollHint()}`);
    expect(helpWindow(30, 12, 99, 60)).toMatchObject({ top: 21, more: `↑ 21 above: ${scrollHint()}` });
    expect(helpMaxScroll(30, 12)).toBe(21);
    // Few rows: the blank line goes, at least one line is always shown, the "more" line fits the width.
    expect(helpWindow(30, 4, 0, 20)).toMatchObject({ spacer: false, size: 2 });
    expect(textWidth(helpWindow(30, 4, 3, 20).more!)).toBeLessThanOrEqual(20);
    expect(helpWindow(30, 1, 0, 40).size).toBe(1);
    expect(scrollHint()).toBe('j/k scroll · ? or Esc closes');
  });
});
