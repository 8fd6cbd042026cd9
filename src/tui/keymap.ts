/**
 * THE keymap: one table of command -> keys -> description -> screens. Input handlers ask "does this key
 * mean command X on this screen?" (`commandFor`), and the `?` help, the footer hints and the README's
 * keys table are generated from the same rows, so a rebinding can never leave the help wrong.
 * Conventions follow aerc/mutt (DESIGN.md, "Keys"), with arrows and Page/Home/End too.
 */
import type { Key } from 'ink';
import { textWidth } from '../core/text-width';

/** Where a key is read. `prefix` and `filter` are the text inputs; `confirm` is a y/n question. */
export type Screen = 'picker' | 'prefix' | 'inbox' | 'filter' | 'viewer' | 'confirm' | 'help';

export type Command =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'first'
  | 'last'
  | 'open'
  | 'choose'
  | 'submit'
  | 'delete'
  | 'refresh'
  | 'newAddress'
  | 'copy'
  | 'filter'
  | 'headers'
  | 'link'
  | 'back'
  | 'help'
  | 'quit'
  | 'yes'
  | 'no';

type Special = 'upArrow' | 'downArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape';

/**
 * One key: a typed character (case matters), a special key, the digits 1-9, or any key at all;
 * `only` limits it to some of the binding's screens (`q` goes back in the viewer but quits the inbox).
 */
export type KeySpec = ({ char: string } | { special: Special } | { digits: '1-9' | '0-9' } | { any: true }) & {
  only?: readonly Screen[];
};

export interface Binding {
  command: Command;
  keys: readonly KeySpec[];
  /** What the key does, for the help screen (per screen where the meaning differs). */
  description: string | Partial<Record<Screen, string>>;
  screens: readonly Screen[];
  /** Short word for the footer; bindings without one are only in the help. */
  hint?: string;
  /** Screens whose footer shows the hint (default: all of `screens`). */
  footer?: readonly Screen[];
}

const char = (c: string): KeySpec => ({ char: c });
const special = (s: Special): KeySpec => ({ special: s });

/** The table. Order is the order of the help screen and footer. */
export const KEYMAP: readonly Binding[] = [
  {
    command: 'down',
    keys: [char('j'), special('downArrow')],
    description: { picker: 'next choice', inbox: 'next message', viewer: 'scroll down one line' },
    screens: ['picker', 'inbox', 'viewer'],
    hint: 'move',
  },
  {
    command: 'up',
    keys: [char('k'), special('upArrow')],
    description: { picker: 'previous choice', inbox: 'previous message', viewer: 'scroll up one line' },
    screens: ['picker', 'inbox', 'viewer'],
    hint: 'move',
  },
  {
    command: 'pageDown',
    keys: [char(' '), special('pageDown')],
    description: { inbox: 'next page of messages', viewer: 'next page' },
    screens: ['inbox', 'viewer'],
  },
  {
    command: 'pageUp',
    keys: [char('b'), special('pageUp')],
    description: { inbox: 'previous page of messages', viewer: 'previous page' },
    screens: ['inbox', 'viewer'],
  },
  {
    command: 'first',
    keys: [char('g'), special('home')],
    description: { inbox: 'first (newest) message', viewer: 'top of the message' },
    screens: ['inbox', 'viewer'],
  },
  {
    command: 'last',
    keys: [char('G'), special('end')],
    description: { inbox: 'last (oldest) message', viewer: 'bottom of the message' },
    screens: ['inbox', 'viewer'],
  },
  {
    command: 'choose',
    keys: [special('return'), { digits: '1-9' }],
    description: 'create the highlighted address (1-9 pick a line directly)',
    screens: ['picker'],
    hint: 'choose',
  },
  {
    command: 'submit',
    keys: [special('return')],
    description: {
      prefix: 'create the address with this name',
      filter: 'keep this filter',
      viewer: 'show the link number typed so far (with 10+ links)',
    },
    screens: ['prefix', 'filter', 'viewer'],
    hint: 'ok',
    footer: ['prefix', 'filter'],
  },
  { command: 'open', keys: [special('return')], description: 'open the message', screens: ['inbox'], hint: 'open' },
  {
    command: 'delete',
    keys: [char('d')],
    description: 'delete the message (asks first)',
    screens: ['inbox', 'viewer'],
    hint: 'delete',
  },
  {
    command: 'refresh',
    keys: [char('r')],
    description: { picker: 'retry loading the domains', inbox: 'check for mail now', viewer: 'retry loading the message' },
    screens: ['picker', 'inbox', 'viewer'],
    hint: 'refresh',
  },
  {
    command: 'newAddress',
    keys: [char('n')],
    description: 'new address (asks before leaving a live one)',
    screens: ['inbox'],
    hint: 'new',
  },
  { command: 'copy', keys: [char('c')], description: 'copy the address to the clipboard', screens: ['inbox'], hint: 'copy' },
  { command: 'filter', keys: [char('/')], description: 'filter by sender or subject', screens: ['inbox'], hint: 'filter' },
  { command: 'headers', keys: [char('H')], description: 'show or hide the headers', screens: ['viewer'], hint: 'headers' },
  {
    command: 'link',
    keys: [{ digits: '0-9' }],
    description: 'show link N in full and copy it (type its number)',
    screens: ['viewer'],
    hint: 'link',
  },
  {
    command: 'back',
    keys: [special('escape'), { char: 'q', only: ['viewer', 'help'] }],
    description: {
      viewer: 'back to the inbox',
      help: 'close the help',
      prefix: 'back to the list',
      filter: 'clear the filter',
      picker: 'back to the current address (when there is one)',
    },
    screens: ['viewer', 'help', 'prefix', 'filter', 'picker'],
    hint: 'back',
    // In the picker, Esc works only when there is an address to go back to: not worth a footer entry.
    footer: ['viewer', 'help', 'prefix', 'filter'],
  },
  {
    command: 'help',
    keys: [char('?')],
    description: { picker: 'this help', inbox: 'this help', viewer: 'this help', help: 'close the help' },
    screens: ['picker', 'inbox', 'viewer', 'help'],
    hint: 'help',
  },
  {
    command: 'quit',
    keys: [char('q')],
    description: { picker: 'quit', inbox: 'quit (the address keeps working until it expires)' },
    screens: ['picker', 'inbox'],
    hint: 'quit',
  },
  { command: 'yes', keys: [char('y'), char('Y')], description: 'yes, do it', screens: ['confirm'], hint: 'yes' },
  { command: 'no', keys: [{ any: true }], description: 'no, leave it as it is', screens: ['confirm'], hint: 'no' },
];

// On screens with a text input, printable keys are text: only special keys may carry a command there.
const TEXT_SCREENS: readonly Screen[] = ['prefix', 'filter'];

function keyMatches(spec: KeySpec, input: string, key: Key, screen: Screen): boolean {
  if (spec.only && !spec.only.includes(screen)) return false;
  if ('any' in spec) return true;
  if ('special' in spec) return key[spec.special];
  if (key.ctrl || key.meta || key.escape || TEXT_SCREENS.includes(screen)) return false;
  if ('digits' in spec) return spec.digits === '1-9' ? /^[1-9]$/.test(input) : /^[0-9]$/.test(input);
  return input === spec.char;
}

/** The bindings of a screen, in table order. */
export function bindingsFor(screen: Screen): Binding[] {
  return KEYMAP.filter((b) => b.screens.includes(screen));
}

/** The command a key means on `screen`, or undefined. The first matching row wins (table order). */
export function commandFor(screen: Screen, input: string, key: Key): Command | undefined {
  for (const binding of bindingsFor(screen)) {
    for (const spec of binding.keys) {
      if (keyMatches(spec, input, key, screen)) return binding.command;
    }
  }
  return undefined;
}

/** True when the key means `command` on `screen`. */
export function isCommand(command: Command, screen: Screen, input: string, key: Key): boolean {
  return commandFor(screen, input, key) === command;
}

const SPECIAL_LABELS: Record<Special, string> = {
  upArrow: '↑',
  downArrow: '↓',
  pageUp: 'PgUp',
  pageDown: 'PgDn',
  home: 'Home',
  end: 'End',
  return: 'Enter',
  escape: 'Esc',
};

/** How a key is written in help and footer. */
export function keyLabel(spec: KeySpec): string {
  if ('any' in spec) return 'any other key';
  if ('special' in spec) return SPECIAL_LABELS[spec.special];
  if ('digits' in spec) return spec.digits;
  return spec.char === ' ' ? 'Space' : spec.char;
}

/** The keys of a binding that work on `screen`, as labels. */
export function keysOf(binding: Binding, screen: Screen): string[] {
  return binding.keys.filter((spec) => !spec.only || spec.only.includes(screen)).map(keyLabel);
}

/** The description of a binding on `screen`. */
export function describe(binding: Binding, screen: Screen): string {
  if (typeof binding.description === 'string') return binding.description;
  return binding.description[screen] ?? Object.values(binding.description)[0] ?? '';
}

/** Rows of the help screen: keys and what they do, for one screen. */
export function helpRows(screen: Screen): { keys: string; description: string }[] {
  return bindingsFor(screen).map((b) => ({ keys: keysOf(b, screen).join(' / '), description: describe(b, screen) }));
}

/**
 * The footer line of a screen, "j/k move  Enter open  d delete ...": the first key of each binding
 * with a hint; bindings sharing a hint word share one entry. When it does not fit in `columns`, the
 * entries before the last two (help and quit or back) are dropped from the end, whole.
 */
export function footerHints(screen: Screen, columns = Number.POSITIVE_INFINITY): string {
  const groups = new Map<string, string[]>();
  for (const b of bindingsFor(screen)) {
    const first = keysOf(b, screen)[0];
    if (b.hint === undefined || first === undefined || (b.footer && !b.footer.includes(screen))) continue;
    groups.set(b.hint, [...(groups.get(b.hint) ?? []), first]);
  }
  const entries = [...groups].map(([hint, keys]) => `${keys.join('/')} ${hint}`);
  const join = () => entries.join('  ');
  while (textWidth(join()) > columns && entries.length > 2) entries.splice(entries.length - 3, 1);
  return join();
}

const SCREEN_TITLES: Partial<Record<Screen, string>> = {
  picker: 'Address picker',
  prefix: 'Custom name input',
  inbox: 'Inbox',
  filter: 'Filter input',
  viewer: 'Message viewer',
  confirm: 'Questions (delete, new address)',
  help: 'Help screen',
};

/** The keys as Markdown tables, one per screen, for the README (generated so it cannot drift). */
export function keymapMarkdown(): string {
  const parts: string[] = [];
  for (const [screen, title] of Object.entries(SCREEN_TITLES) as [Screen, string][]) {
    parts.push(`**${title}**`, '', '| Keys | Action |', '|---|---|');
    for (const row of helpRows(screen)) {
      const keys = row.keys.split(' / ').map((k) => `\`${k === '|' ? '\\|' : k}\``).join(', ');
      parts.push(`| ${keys} | ${row.description} |`);
    }
    parts.push('');
  }
  return parts.join('\n');
}
