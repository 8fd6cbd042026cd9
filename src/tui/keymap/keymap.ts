/**
 * THE keymap: one table of command -> keys -> description -> screens. Input handlers ask "does this key
 * mean command X on this screen?" (`commandFor`), and the `?` help, the footer hints and the README's
 * keys table are generated from the same rows, so a rebinding can never leave the help wrong.
 * The table itself is data in keymap-table.ts.
 */
import type { Key } from 'ink';
import { textWidth } from '../../text/text-width';
import { KEYMAP, type Binding, type Command, type KeySpec, type Screen, type Special } from './keymap-table';

export { KEYMAP, type Binding, type Command, type KeySpec, type Screen } from './keymap-table';

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
export function footerHints(screen: Screen, columns = Number.POSITIVE_INFINITY, hide: readonly Command[] = []): string {
  const groups = new Map<string, string[]>();
  for (const b of bindingsFor(screen)) {
    const first = keysOf(b, screen)[0];
    if (b.hint === undefined || first === undefined || (b.footer && !b.footer.includes(screen)) || hide.includes(b.command)) continue;
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
  switch: 'Address switcher (s)',
  attachment: 'Choosing an attachment to save (a)',
  overwrite: 'Saving over a file that exists (a)',
  confirm: 'Questions (delete, new address, forget)',
  forgetAccount: 'Forgetting an address its provider can delete (x on a mail.tm address)',
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
