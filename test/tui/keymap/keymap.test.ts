import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import {
  bindingsFor,
  commandFor,
  footerHints,
  helpRows,
  KEYMAP,
  keymapMarkdown,
  MAIN_SCREENS,
  type KeySpec,
  type Screen,
} from '../../../src/tui/keymap/keymap';

const SCREENS: Screen[] = [
  'picker',
  'prefix',
  'inbox',
  'filter',
  'viewer',
  'search',
  'found',
  'confirm',
  'help',
  'switch',
  'attachment',
  'overwrite',
  'global',
];

const noKey: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** What Ink would hand a handler for this key. */
function press(spec: KeySpec): [string, Key] {
  if ('char' in spec) return [spec.char, { ...noKey, shift: spec.char !== spec.char.toLowerCase() }];
  if ('special' in spec) return ['', { ...noKey, [spec.special]: true }];
  if ('digits' in spec) return ['3', noKey];
  if ('ctrl' in spec) return [spec.ctrl, { ...noKey, ctrl: true }];
  return ['x', noKey];
}

describe('keymap', () => {
  it('every key of every screen means the command its row says (no row shadows another)', () => {
    for (const screen of SCREENS) {
      for (const binding of bindingsFor(screen)) {
        for (const spec of binding.keys) {
          if (spec.only && !spec.only.includes(screen)) continue;
          // Printable keys are text on the input screens: only special keys may be commands there.
          if (
            (screen === 'prefix' || screen === 'filter' || screen === 'search') &&
            !('special' in spec) &&
            !('ctrl' in spec)
          )
            continue;
          const [input, key] = press(spec);
          expect([screen, binding.command, commandFor(screen, input, key)]).toEqual([
            screen,
            binding.command,
            binding.command,
          ]);
        }
      }
    }
  });

  it('follows the aerc/mutt conventions of docs/architecture.md', () => {
    const cmd = (screen: Screen, input: string, key: Partial<Key> = {}) =>
      commandFor(screen, input, { ...noKey, ...key });
    expect([cmd('inbox', 'j'), cmd('inbox', 'k'), cmd('inbox', '', { downArrow: true })]).toEqual([
      'down',
      'up',
      'down',
    ]);
    expect([cmd('inbox', 'g'), cmd('inbox', 'G'), cmd('inbox', '', { return: true })]).toEqual([
      'first',
      'last',
      'open',
    ]);
    expect([cmd('inbox', 'd'), cmd('inbox', 'r'), cmd('inbox', 'n'), cmd('inbox', 'c')]).toEqual([
      'delete',
      'refresh',
      'newAddress',
      'copy',
    ]);
    expect([cmd('inbox', '/'), cmd('inbox', '?'), cmd('inbox', 'q')]).toEqual(['filter', 'help', 'quit']);
    expect([cmd('viewer', ' '), cmd('viewer', 'b'), cmd('viewer', 'H'), cmd('viewer', '7')]).toEqual([
      'pageDown',
      'pageUp',
      'headers',
      'link',
    ]);
    expect([cmd('viewer', 'q'), cmd('viewer', '', { escape: true }), cmd('viewer', 'd')]).toEqual([
      'back',
      'back',
      'delete',
    ]);
    expect([cmd('confirm', 'y'), cmd('confirm', 'n'), cmd('confirm', '', { escape: true })]).toEqual([
      'yes',
      'no',
      'no',
    ]);
    expect([cmd('picker', 'q'), cmd('picker', '', { escape: true })]).toEqual(['quit', 'back']);
    // Typing a name: letters are text, not commands.
    expect([cmd('prefix', 'q'), cmd('filter', 'd'), cmd('filter', '', { escape: true })]).toEqual([
      undefined,
      undefined,
      'back',
    ]);
    // Issue 4: switch and forget addresses, copy the code, open a link, save an attachment.
    expect([
      cmd('inbox', 's'),
      cmd('inbox', 'x'),
      cmd('switch', 'x'),
      cmd('switch', '', { return: true }),
      cmd('switch', '2'),
    ]).toEqual(['switch', 'forget', 'forget', 'choose', 'choose']);
    expect([cmd('switch', 'q'), cmd('switch', '', { escape: true }), cmd('switch', 'j')]).toEqual([
      'back',
      'back',
      'down',
    ]);
    expect([cmd('viewer', 'y'), cmd('viewer', 'o'), cmd('viewer', 'a')]).toEqual(['yank', 'openLink', 'save']);
    expect([cmd('attachment', '2'), cmd('attachment', 'q'), cmd('attachment', '', { escape: true })]).toEqual([
      'choose',
      'no',
      'no',
    ]);
    // The attachment's name is taken: o replaces, k keeps both, any other key (the viewer's j and q too) cancels.
    expect([
      cmd('overwrite', 'o'),
      cmd('overwrite', 'k'),
      cmd('overwrite', 'j'),
      cmd('overwrite', '', { escape: true }),
    ]).toEqual(['overwrite', 'keepBoth', 'no', 'no']);
    // Modified keys are not plain letters.
    expect(cmd('inbox', 'd', { ctrl: true })).toBeUndefined();
  });

  it('the help of each screen lists every row of the table for that screen', () => {
    for (const screen of SCREENS) {
      const rows = helpRows(screen, false);
      expect(rows.length).toBe(KEYMAP.filter((b) => b.screens.includes(screen)).length);
      for (const row of rows) {
        expect(row.keys).not.toBe('');
        expect(row.description).not.toBe('');
      }
    }
    expect(helpRows('inbox').map((r) => r.keys)).toContain('d');
    expect(helpRows('viewer').find((r) => r.keys === 'Esc / q')?.description).toBe('back to the inbox');
  });

  it('footer hints come from the table and fit 80 columns whole', () => {
    expect(footerHints('inbox')).toMatch(/^j\/k move {2}Enter open {2}d delete/);
    // Global keys work everywhere and are in every help, in no footer.
    for (const screen of SCREENS.filter((s) => s !== 'global')) {
      const line = footerHints(screen, 80);
      expect(textWidth(line)).toBeLessThanOrEqual(80);
      expect(line).toMatch(/\S/);
    }
    // When something has to go, help and quit stay.
    expect(footerHints('inbox', 50)).toMatch(/\? help {2}q quit$/);
  });

  it('renders the docs keys tables from the same rows, every screen or the ones asked for', () => {
    const md = keymapMarkdown();
    expect(md).toContain('**Inbox**');
    expect(md).toContain('| `d` | delete the message (asks first) |');
    expect(md).toContain('| `Esc`, `q` | back to the inbox |');
    expect(md).toContain('**Address switcher (s)**');
    // The README's: the screens a newcomer meets first, the same rows. (test/docs/generated.test.ts
    // checks the tables in the docs are these.)
    const main = keymapMarkdown(MAIN_SCREENS);
    expect(main.match(/^\*\*.*\*\*$/gm)).toEqual([
      '**Address picker**',
      '**Inbox**',
      '**Message viewer**',
      '**Everywhere**',
    ]);
    for (const block of main.split('\n\n')) expect(md).toContain(block);
  });
});

describe('keys of issue 16 (reading mail)', () => {
  const cmd = (screen: Screen, input: string, key: Partial<Key> = {}) =>
    commandFor(screen, input, { ...noKey, ...key });

  it('adds J/K, /, R, t and S to the viewer without changing a key it had', () => {
    expect([cmd('viewer', 'J'), cmd('viewer', 'K'), cmd('viewer', '/')]).toEqual([
      'nextMessage',
      'previousMessage',
      'search',
    ]);
    expect([cmd('viewer', 'R'), cmd('viewer', 't'), cmd('viewer', 'S')]).toEqual(['source', 'part', 'saveMessage']);
    // What the viewer's keys meant before stays: r retries, d deletes, H headers, digits links, a y o.
    expect([cmd('viewer', 'r'), cmd('viewer', 'd'), cmd('viewer', 'H'), cmd('viewer', '4')]).toEqual([
      'refresh',
      'delete',
      'headers',
      'link',
    ]);
    expect([
      cmd('viewer', 'a'),
      cmd('viewer', 'y'),
      cmd('viewer', 'o'),
      cmd('viewer', 'j'),
      cmd('viewer', 'k'),
    ]).toEqual(['save', 'yank', 'openLink', 'down', 'up']);
    // n and N mean nothing in the viewer until a search is set; the inbox keeps its n and its / filter.
    expect([cmd('viewer', 'n'), cmd('viewer', 'N'), cmd('inbox', 'n'), cmd('inbox', '/')]).toEqual([
      undefined,
      undefined,
      'newAddress',
      'filter',
    ]);
  });

  it('with a search set, n/N move between matches, Esc clears it, q still goes back, the rest is the viewer', () => {
    expect([cmd('found', 'n'), cmd('found', 'N'), cmd('found', '', { escape: true })]).toEqual([
      'nextMatch',
      'previousMatch',
      'clearSearch',
    ]);
    expect([cmd('found', 'q'), cmd('found', 'j'), cmd('found', 'J'), cmd('found', 'y'), cmd('found', '/')]).toEqual([
      'back',
      'down',
      'nextMessage',
      'yank',
      'search',
    ]);
    // Its help lists its own keys, then the viewer's it does not take (q only, for back), then Ctrl-Z and Ctrl-L.
    const rows = helpRows('found');
    expect(rows.slice(0, 3).map((r) => r.keys)).toEqual(['n', 'N', 'Esc']);
    expect(rows.find((r) => r.description === 'back to the inbox')?.keys).toBe('q');
    expect(rows.slice(-2).map((r) => r.keys)).toEqual(['Ctrl-Z', 'Ctrl-L']);
    expect(footerHints('found', 80)).toMatch(/^n\/N match {2}Esc clear .* q back {2}\? help$/);
  });

  it('the search input is text: letters are typed, Enter keeps the search, Esc clears it', () => {
    expect([
      cmd('search', 'n'),
      cmd('search', 'q'),
      cmd('search', '', { return: true }),
      cmd('search', '', { escape: true }),
    ]).toEqual([undefined, undefined, 'submit', 'back']);
  });

  it('Ctrl-Z suspends and Ctrl-L redraws on every screen, before any "any other key" of a question', () => {
    for (const screen of SCREENS) expect([screen, cmd(screen, 'z', { ctrl: true })]).toEqual([screen, 'suspend']);
    for (const screen of SCREENS) expect([screen, cmd(screen, 'l', { ctrl: true })]).toEqual([screen, 'redraw']);
    expect([cmd('inbox', 'z'), cmd('prefix', 'z'), cmd('prefix', 'l')]).toEqual([undefined, undefined, undefined]);
    expect(helpRows('inbox').slice(-2)).toEqual([
      { keys: 'Ctrl-Z', description: expect.stringMatching(/^suspend/) },
      { keys: 'Ctrl-L', description: 'draw the whole screen anew' },
    ]);
    expect(keymapMarkdown()).toContain('**Everywhere**');
  });
});

describe('keys of the help screen', () => {
  it('scrolls with the keys that scroll the viewer, and ?, q and Esc still close it', () => {
    const cmd = (input: string, key: Partial<Key> = {}) => commandFor('help', input, { ...noKey, ...key });
    expect([cmd('j'), cmd('', { downArrow: true }), cmd('k'), cmd('', { upArrow: true })]).toEqual([
      'down',
      'down',
      'up',
      'up',
    ]);
    expect([cmd(' '), cmd('', { pageDown: true }), cmd('b'), cmd('', { pageUp: true })]).toEqual([
      'pageDown',
      'pageDown',
      'pageUp',
      'pageUp',
    ]);
    expect([cmd('g'), cmd('', { home: true }), cmd('G'), cmd('', { end: true })]).toEqual([
      'first',
      'first',
      'last',
      'last',
    ]);
    expect([cmd('?'), cmd('q'), cmd('', { escape: true })]).toEqual(['help', 'back', 'back']);
    // The rows added for the help do not change what the keys mean elsewhere.
    expect(commandFor('viewer', 'j', noKey)).toBe('down');
    expect(helpRows('viewer').find((r) => r.keys === 'j / ↓')?.description).toBe('scroll down one line');
  });
});

describe('keys of issue 26 (the first ten minutes)', () => {
  const cmd = (screen: Screen, input: string, key: Partial<Key> = {}) =>
    commandFor(screen, input, { ...noKey, ...key });

  it('T in the inbox sends a sample message; c in the viewer copies the code; both in the help, in no footer', () => {
    expect([cmd('inbox', 'T'), cmd('inbox', 't'), cmd('viewer', 'T')]).toEqual(['sample', undefined, undefined]);
    // c keeps copying the address in the inbox; in the viewer (with a search set too) it is the code.
    expect([cmd('inbox', 'c'), cmd('viewer', 'c'), cmd('found', 'c'), cmd('search', 'c')]).toEqual([
      'copy',
      'copyCode',
      'copyCode',
      undefined,
    ]);
    expect(helpRows('inbox').find((r) => r.keys === 'T')?.description).toMatch(/^send this address a sample message/);
    expect(helpRows('viewer').find((r) => r.keys === 'c')?.description).toBe(
      'copy the code (or say why there is none)',
    );
    expect(footerHints('inbox')).not.toMatch(/\bT\b/);
    expect(footerHints('viewer')).not.toMatch(/\bc copy/);
    expect(keymapMarkdown(MAIN_SCREENS)).toContain('| `T` | send this address a sample message');
  });
});

describe('the suspend key', () => {
  it('says the truth: nothing is checked while the app is stopped, and says how to come back', () => {
    const suspend = KEYMAP.find((b) => b.command === 'suspend');
    const text = String(suspend?.description);
    expect(text).not.toMatch(/still checking/);
    expect(text).toMatch(/no mail is checked/);
    expect(text).toMatch(/\bfg\b/);
  });
});
