/**
 * The frame diff: a terminal that had frame A and then got the diff to B shows exactly what a terminal
 * that got B whole shows, cell by cell (characters, widths, colours, attributes) and cursor, for the
 * changes the app makes (a countdown's second, a selection moving, a line getting shorter, colours coming
 * and going) and for lines it cannot place by column (wide characters, emoji, combining marks), and for
 * a few hundred random frames; and it writes little.
 */
import { describe, expect, it } from 'vitest';
import { frameDiff, lineUpdate, moveTo } from '../../../src/tui/terminal/frame-diff';
import { changeStyle, lineCells } from '../../../src/tui/terminal/line-cells';
import { cells, feed, terminal, text } from './xterm-cells';

const COLS = 60;
const ROWS = 12;

/** A frame written whole, the way Ink writes its first one: its lines, each ended by a newline. */
const whole = (lines: readonly string[]) => `${lines.join('\n')}\n`;

/**
 * The screen after A whole and then the diff to B (the cursor then put back below the frame, where Ink
 * keeps it), and the screen after B whole.
 */
async function bothWays(a: readonly string[], b: readonly string[], offset = 0) {
  const viaDiff = terminal(COLS, ROWS);
  const direct = terminal(COLS, ROWS);
  const lead = '\n'.repeat(offset);
  await feed(viaDiff, lead + whole(a));
  const diff = frameDiff(a, b);
  expect(diff).not.toBeNull();
  await feed(viaDiff, diff!.bytes + moveTo(diff!.row, b.length));
  await feed(direct, lead + whole(b));
  return { viaDiff, direct, diff: diff!.bytes };
}

async function expectSameScreen(a: readonly string[], b: readonly string[], offset = 0): Promise<string> {
  const { viaDiff, direct, diff } = await bothWays(a, b, offset);
  expect(cells(viaDiff), `after the diff:\n${text(viaDiff)}\nwhole:\n${text(direct)}`).toEqual(cells(direct));
  return diff;
}

const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));
const bold = (s: string) => `\x1b[1m${s}\x1b[22m`;
const cyan = (s: string) => `\x1b[36m${s}\x1b[39m`;
const gray = (s: string) => `\x1b[90m${s}\x1b[39m`;
const inverse = (s: string) => `\x1b[7m${s}\x1b[27m`;

/** An inbox screen as Ink draws it (every line narrower than the terminal, as Ink cuts them). */
function inbox(countdown: string, selected: number, extra = ''): string[] {
  const rows = [
    'Alice   Order 1 shipped   09:12',
    'Bob     Your code 482913  09:10',
    'Carol   Newsletter        Nov 21',
  ];
  return [
    `${bold(cyan('quiet-otter@tempmail.test'))}${pad('', 3)}expires in ${countdown}`,
    gray(`last checked 09:15:02 · every 5 s${extra}`),
    gray('3 messages · 1 unread'),
    ...rows.map((r, i) => (i === selected ? inverse(r) : r)),
    '',
    gray('j/k move · Enter open · q quit'),
  ];
}

describe('frame diff', () => {
  it('a countdown second: the changed digits, a few bytes', async () => {
    const diff = await expectSameScreen(inbox('59:59', 0), inbox('59:58', 0));
    expect(diff.length).toBeLessThan(24);
    expect(diff).toContain('8');
    expect(diff).not.toContain('quiet-otter');
  });

  it('a selection moving: the two rows, styles right', async () => {
    const diff = await expectSameScreen(inbox('59:59', 0), inbox('59:59', 1));
    expect(diff).not.toContain('Carol');
    await expectSameScreen(inbox('59:59', 2), inbox('59:59', 0), 3);
  });

  it('nothing changed: nothing written', () => {
    expect(frameDiff(inbox('1:00', 1), inbox('1:00', 1))).toEqual({ bytes: '', row: 8 });
    // The same look spelled another way is no change either.
    expect(frameDiff(['\x1b[1m\x1b[36mab\x1b[39m\x1b[22m'], ['\x1b[36m\x1b[1mab\x1b[22m\x1b[39m'])?.bytes).toBe('');
  });

  it('diffs in a row start where the last one left the cursor', async () => {
    const frames = ['59:59', '59:58', '59:57', '59:56'].map((t, i) => inbox(t, i % 3));
    const viaDiff = terminal(COLS, ROWS);
    await feed(viaDiff, whole(frames[0]!));
    let row = frames[0]!.length;
    for (let i = 1; i < frames.length; i++) {
      const diff = frameDiff(frames[i - 1]!, frames[i]!, row)!;
      await feed(viaDiff, diff.bytes);
      row = diff.row;
    }
    await feed(viaDiff, moveTo(row, frames[3]!.length));
    const direct = terminal(COLS, ROWS);
    await feed(direct, whole(frames[3]!));
    expect(cells(viaDiff)).toEqual(cells(direct));
  });

  it('lines getting shorter or longer, blank lines, the last column', async () => {
    await expectSameScreen(inbox('59:59', 0, ' · retrying in 10 s'), inbox('59:59', 0));
    await expectSameScreen(inbox('59:59', 0), inbox('59:59', 0, ' · retrying in 10 s'));
    await expectSameScreen(['a', '', 'c'], ['', 'b', '']);
    const full = 'x'.repeat(COLS - 2);
    await expectSameScreen([`${full}ab`, 'tail'], [`${full}ac`, 'tail']);
    await expectSameScreen([`${full}ab`, 'tail'], [`${full}`, 'tail']);
    await expectSameScreen([inverse(`${full}ab`)], [`${full}ab`]);
  });

  it('wide characters, emoji and combining marks: their lines rewritten whole, others untouched', async () => {
    await expectSameScreen(['漢字 subject 09:12', 'plain'], ['漢字 subject 09:13', 'plain']);
    await expectSameScreen(['👩‍💻 hi', 'e\u0301 x', 'plain'], ['hi', 'é x', 'plainer']);
    await expectSameScreen(['ab', 'cd'], ['a漢', 'cd']);
    const update = lineUpdate('漢字 a', '漢字 b');
    expect(update?.column).toBe(0);
    // Clusters terminals draw at different widths (docs/architecture.md, "Cell widths"): whole too, so
    // where one is drawn narrower than measured the line is what a fresh write shows, never shifted.
    for (const s of ['ทำ', 'क्ष', 'தமிழ்', 'مَرْحَبًا', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', 'এ\u200cই']) {
      expect(lineCells(`${s} 09:12`), s).toBeNull();
      expect(lineUpdate(`${s} 09:12`, `${s} 09:13`)?.column, s).toBe(0);
    }
  });

  it('East Asian ambiguous characters (é, °, …, ─, arrows, curly quotes): their lines rewritten whole', async () => {
    // Terminals set for CJK locales draw these two columns wide: a change placed by column after one
    // would land short of where it is drawn, so the update starts at the line's first column.
    for (const ch of ['é', '°', '×', '…', '─', '↓', '“', '–']) {
      expect(lineCells(`Caf${ch} promo 09:12`), ch).toBeNull();
      expect(lineUpdate(`Caf${ch} promo 09:12`, `Caf${ch} promo 09:13`)?.column, ch).toBe(0);
    }
    await expectSameScreen(['Café promo… 09:12', 'plain'], ['Café promo… 09:13', 'plain']);
    // Neutral ones keep their column: ç, ñ, ✓.
    expect(lineUpdate('Façade ñ ✓ 09:12', 'Façade ñ ✓ 09:13')?.column).toBe(15);
  });

  it('colours it does not model: the line rewritten whole', async () => {
    await expectSameScreen(['\x1b[38;2;1;2;3mrgb\x1b[39m x', 'y'], ['\x1b[4:3mcurly\x1b[24m x', 'y']);
    expect(lineCells('\x1b[4:3mx')).toBeNull();
    expect(lineCells('\x1b[38;5;100mx\x1b[39m')).toEqual([{ ch: 'x', style: '38;5;100' }]);
  });

  it('different heights: no diff (the frame goes whole)', () => {
    expect(frameDiff(['a', 'b'], ['a'])).toBeNull();
  });

  it('styles change as chalk writes them, never through a reset', () => {
    expect(changeStyle('', '1;36')).toBe('\x1b[36m\x1b[1m');
    expect(changeStyle('1;36', '')).toBe('\x1b[22m\x1b[39m');
    // 22 ends bold and dim alike: the dim that stays is opened again.
    expect(changeStyle('1;2', '2')).toBe('\x1b[22m\x1b[2m');
    expect(changeStyle('7', '1')).toBe('\x1b[27m\x1b[1m');
  });

  it('random frames: the same screen either way', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const words = ['a', 'bc', 'def', ' ', '  ', '·', '…', 'é', '漢', '😀', 'x\u0301', '12:34'];
    const styles: ((s: string) => string)[] = [
      (s) => s,
      bold,
      cyan,
      gray,
      inverse,
      (s) => `\x1b[2m\x1b[41m${s}\x1b[49m\x1b[22m`,
    ];
    const line = () => {
      let out = '';
      let width = 0;
      const n = Math.floor(random() * 8);
      for (let i = 0; i < n && width < COLS - 6; i++) {
        const w = pick(words);
        out += pick(styles)(w);
        width += w.length + 1;
      }
      return out;
    };
    for (let round = 0; round < 150; round++) {
      const a = Array.from({ length: 6 }, line);
      const b = a.map((l) => (random() < 0.4 ? line() : l));
      await expectSameScreen(a, b, round % 3);
    }
  });
});
