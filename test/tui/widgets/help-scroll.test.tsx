/**
 * The `?` help on small and ordinary terminals: every binding reachable by scrolling, descriptions
 * wrapped whole under their column, nothing wider than the terminal, the scroll keys and the closing keys.
 */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { helpRows, type Screen } from '../../../src/tui/keymap/keymap';
import { sendMail } from '../../harness/service';
import { collapsed, readWholeHelp } from './help-pages';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY, plain } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach(() => {
  from = 0;
});

const TITLES = {
  inbox: 'Keys: inbox',
  viewer: 'Keys: reading a message',
  picker: 'Keys: choosing an address',
} as const;

// Frames before this one may be from before the test terminal got its size (the library draws first).
let from = 0;

/** Every drawn line of every frame since the help first opened fits `columns`, and no frame has more than `rows` lines. */
function expectFramesFit(app: AppHarness, columns: number, rows: number) {
  expect(app.screen.frames.length).toBeGreaterThan(from);
  for (const raw of app.screen.frames.slice(from)) {
    const lines = plain(raw).split('\n');
    expect(lines.length).toBeLessThanOrEqual(rows);
    const wide = lines.filter((l) => textWidth(l) > columns);
    expect(wide).toEqual([]);
  }
}

/** Opens the help of `screen` (already on it), reads it whole and checks every binding is in it. */
async function expectWholeHelp(app: AppHarness, screen: keyof typeof TITLES): Promise<number> {
  if (from === 0) from = app.screen.frames.length;
  await app.screen.press('?');
  const { text, scrolled } = await readWholeHelp(app.screen, TITLES[screen]);
  for (const row of helpRows(screen as Screen)) expect(text).toContain(collapsed(`${row.keys} ${row.description}`));
  return scrolled;
}

/** An inbox with one message, opened in the viewer. */
async function openMessage(app: AppHarness) {
  const address = await pickFirstDomain(app);
  await sendMail(app.svc, { to: address, subject: 'Help me', text: 'Body of the helpful message.' });
  await app.screen.press('r');
  await app.screen.waitFor('Help me');
  await app.screen.press(KEY.ENTER);
  await app.screen.waitFor('Body of the helpful message.');
}

describe('the help at 60x20', () => {
  it('inbox: every binding is reachable by scrolling, the last line says what is below, lines fit', async () => {
    h = await startApp({ columns: 60, rows: 20 });
    await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    from = h.screen.frames.length;
    await h.screen.press('?');
    const first = await h.screen.waitFor(TITLES.inbox);
    expect(first).toMatch(/^↓ \d+ more: j\/k scroll · \? or Esc closes/m);
    await h.screen.press('q');
    await h.screen.waitFor('No mail yet');
    expect(await expectWholeHelp(h, 'inbox')).toBeGreaterThan(0);
    // At the bottom: only what is above.
    expect(h.screen.frame()).toMatch(/^↑ \d+ above: j\/k scroll/m);
    expectFramesFit(h, 60, 20);
  });

  it('viewer: every binding, 0-9 and Esc / q included, is reachable; the scroll keys and closing keys work', async () => {
    h = await startApp({ columns: 60, rows: 20 });
    await openMessage(h);
    expect(await expectWholeHelp(h, 'viewer')).toBeGreaterThan(0);
    const bottom = h.screen.frame();
    expect(bottom).toContain('pick link N');
    expect(bottom).toMatch(/Esc \/ q +back to the inbox/);
    await h.screen.press('g');
    let frame = await h.screen.waitFor((f) => /^↓ \d+ more/m.test(f));
    expect(frame).not.toContain('above');
    await h.screen.press(KEY.ARROW_DOWN, KEY.ARROW_DOWN);
    await h.screen.waitFor('↑ 2 above');
    await h.screen.press(KEY.ARROW_UP);
    await h.screen.waitFor('↑ 1 above');
    await h.screen.press(KEY.HOME);
    await h.screen.waitFor((f) => !f.includes('above'));
    await h.screen.press(KEY.SPACE);
    frame = await h.screen.waitFor(/↑ \d+ above/);
    const page = Number(/↑ (\d+) above/.exec(frame)![1]);
    expect(page).toBeGreaterThan(3);
    await h.screen.press('b');
    await h.screen.waitFor((f) => !f.includes('above'));
    await h.screen.press(KEY.PAGE_DOWN);
    await h.screen.waitFor(/↑ \d+ above/);
    await h.screen.press(KEY.PAGE_UP);
    await h.screen.waitFor((f) => !f.includes('above'));
    await h.screen.press('G');
    await h.screen.waitFor((f) => f.includes('above') && !/↓ \d+ more/.test(f));
    await h.screen.press(KEY.END, 'k');
    await h.screen.waitFor(/↓ 1 more/);
    // ?, Esc and q each close it, back to the message.
    for (const close of ['?', KEY.ESC, 'q']) {
      await h.screen.press(close);
      await h.screen.waitForGone(TITLES.viewer);
      await h.screen.waitFor('Body of the helpful message.');
      await h.screen.press('?');
      await h.screen.waitFor(TITLES.viewer);
    }
    // Opened again, it starts at the top.
    expect(h.screen.frame()).not.toContain('above');
    expectFramesFit(h, 60, 20);
  });

  it('picker: every binding is reachable', async () => {
    h = await startApp({ columns: 60, rows: 20 });
    await h.screen.waitFor('Random address on');
    await expectWholeHelp(h, 'picker');
    expectFramesFit(h, 60, 20);
  });
});

describe('the help at 80x24', () => {
  it('no description is cut: each is there whole, wrapped under its column', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    await openMessage(h);
    await expectWholeHelp(h, 'viewer');
    // The longest one wraps rather than ending at the edge.
    await h.screen.press('g');
    const frame = await h.screen.waitFor((f) => /^o +open the picked/m.test(f));
    expect(frame).not.toMatch(/display,…/);
    expect(frame).toMatch(/^ {4,}show and copy it/m);
    await h.screen.press('q');
    await h.screen.waitFor('Body of the helpful message.');
    await h.screen.press('q');
    await h.screen.waitFor('Help me');
    await expectWholeHelp(h, 'inbox');
    expectFramesFit(h, 80, 24);
  });
});

describe('the help at 40x12', () => {
  it('viewer and inbox: still every binding, nothing wider than 40 columns', async () => {
    // The address is cut at 40 columns: pick it at 80, then shrink the terminal.
    h = await startApp({ columns: 80, rows: 24 });
    await openMessage(h);
    h.screen.resize(40, 12);
    await h.screen.waitFor((f) => f.split('\n').length <= 12);
    expect(await expectWholeHelp(h, 'viewer')).toBeGreaterThan(0);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Body of the helpful message.');
    await h.screen.press(KEY.ESC);
    await h.screen.waitForGone('Body of the helpful message.');
    await expectWholeHelp(h, 'inbox');
    expectFramesFit(h, 40, 12);
  });
});
