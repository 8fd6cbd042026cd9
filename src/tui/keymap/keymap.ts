/**
 * THE keymap: one table of command -> keys -> description -> screens. Input handlers ask "does this key
 * mean command X on this screen?" (`commandFor`), and the `?` help, the footer hints and the keys
 * tables of README.md and docs/app.md are generated from the same rows, so a rebinding can never leave
 * the help wrong.
 * The table itself is data in keymap-table.ts.
 */
import type { Key } from 'ink';
import { textWidth } from '../../text/text-width';
import { INHERITS, KEYMAP } from './keymap-table';
import type { Binding, Command, KeySpec, Screen, Special } from './keymap-types';

export { INHERITS, KEYMAP } from './keymap-table';
export type { Binding, Command, KeySpec, Screen } from './keymap-types';

// On screens with a text input, printable keys are text: only special keys may carry a command there.
const TEXT_SCREENS: readonly Screen[] = ['prefix', 'filter', 'search'];

function keyMatches(spec: KeySpec, input: string, key: Key, screen: Screen): boolean {
  if (spec.only && !spec.only.includes(screen)) return false;
  if ('any' in spec) return true;
  if ('special' in spec) return key[spec.special];
  if ('ctrl' in spec) return key.ctrl && !key.meta && input === spec.ctrl;
  if (key.ctrl || key.meta || key.escape || TEXT_SCREENS.includes(screen)) return false;
  if ('digits' in spec) return spec.digits === '1-9' ? /^[1-9]$/.test(input) : /^[0-9]$/.test(input);
  return input === spec.char;
}

/** The bindings of a screen, in table order (its own only: not the inherited or global ones). */
export function bindingsFor(screen: Screen): Binding[] {
  return KEYMAP.filter((b) => b.screens.includes(screen));
}

// The global bindings, then the screen's own, then those of the screen it inherits from.
function layers(screen: Screen): [Screen, Binding[]][] {
  const out: [Screen, Binding[]][] = screen === 'global' ? [] : [['global', bindingsFor('global')]];
  out.push([screen, bindingsFor(screen)]);
  const parent = INHERITS[screen];
  if (parent) out.push([parent, bindingsFor(parent)]);
  return out;
}

/**
 * The command a key means on `screen`, or undefined. Global keys come first (Ctrl-Z is never "any other
 * key" of a question), then the screen's own rows, then those it inherits; within each, table order.
 */
export function commandFor(screen: Screen, input: string, key: Key): Command | undefined {
  for (const [layer, bindings] of layers(screen)) {
    for (const binding of bindings) {
      for (const spec of binding.keys) {
        if (keyMatches(spec, input, key, layer)) return binding.command;
      }
    }
  }
  return undefined;
}

// A key as Ink would hand it over, to tell whether a screen's own rows take it (digits: one of them).
function sampleKey(spec: KeySpec): [string, Partial<Key>] | null {
  if ('char' in spec) return [spec.char, {}];
  if ('special' in spec) return ['', { [spec.special]: true }];
  if ('digits' in spec) return ['3', {}];
  if ('ctrl' in spec) return [spec.ctrl, { ctrl: true }];
  return null;
}

const NO_KEY = {} as Key;

/**
 * The rows that work on `screen` with the keys that reach them there: its own, then (`inherited`) those
 * of the screen it inherits from, less the keys its own rows take, then the global ones.
 */
export function effectiveBindings(screen: Screen, inherited = true): { binding: Binding; keys: KeySpec[] }[] {
  const own = bindingsFor(screen).map((binding) => ({
    binding,
    keys: binding.keys.filter((k) => !k.only || k.only.includes(screen)),
  }));
  const parent = INHERITS[screen];
  if (!inherited) return own;
  const taken = (spec: KeySpec) => {
    const sample = sampleKey(spec);
    return (
      sample !== null &&
      commandFor(screen, sample[0], { ...NO_KEY, ...sample[1] }) !==
        commandFor(parent ?? screen, sample[0], { ...NO_KEY, ...sample[1] })
    );
  };
  const from = parent
    ? bindingsFor(parent)
        .map((binding) => ({
          binding,
          keys: binding.keys.filter((k) => (!k.only || k.only.includes(parent)) && !taken(k)),
        }))
        .filter((b) => b.keys.length > 0)
    : [];
  const global =
    screen === 'global' ? [] : bindingsFor('global').map((binding) => ({ binding, keys: [...binding.keys] }));
  return [...own, ...from, ...global];
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
  if ('ctrl' in spec) return `Ctrl-${spec.ctrl.toUpperCase()}`;
  return spec.char === ' ' ? 'Space' : spec.char;
}

/** The keys of a binding that work on `screen`, as labels. */
export function keysOf(binding: Binding, screen: Screen): string[] {
  return binding.keys.filter((spec) => !spec.only || spec.only.includes(screen)).map(keyLabel);
}

/** The description of a binding on `screen` (or on the screen `screen` inherits it from). */
export function describe(binding: Binding, screen: Screen): string {
  if (typeof binding.description === 'string') return binding.description;
  const from = binding.screens.includes(screen) ? screen : (INHERITS[screen] ?? screen);
  return binding.description[from] ?? Object.values(binding.description)[0] ?? '';
}

/**
 * Rows of the help screen: keys and what they do on one screen. With `inherited` (the `?` screen), the
 * rows it takes from another screen and the global ones follow its own; the docs list each once. With
 * `remote` (the app over SSH), each row says what the key does there, and keys that do nothing there are
 * left out.
 */
export function helpRows(screen: Screen, inherited = true, remote = false): { keys: string; description: string }[] {
  return effectiveBindings(screen, inherited)
    .filter(({ binding }) => !remote || binding.remote !== null)
    .map(({ binding, keys }) => ({
      keys: keys.map(keyLabel).join(' / '),
      description: (remote && binding.remote) || describe(binding, screen),
    }));
}

/**
 * The footer line of a screen, "j/k move  Enter open  d delete ...": the first key of each binding
 * with a hint; bindings sharing a hint word share one entry. When it does not fit in `columns`, the
 * entries before the last two (help and quit or back) are dropped from the end, whole.
 */
export function footerHints(screen: Screen, columns = Number.POSITIVE_INFINITY, hide: readonly Command[] = []): string {
  const groups = new Map<string, string[]>();
  for (const { binding: b, keys } of effectiveBindings(screen)) {
    const first = keys[0] ? keyLabel(keys[0]) : undefined;
    const home = b.screens.includes(screen) ? screen : INHERITS[screen];
    if (
      b.hint === undefined ||
      first === undefined ||
      (b.footer && home && !b.footer.includes(home)) ||
      hide.includes(b.command)
    )
      continue;
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
  search: 'Search input (/ in the viewer)',
  found: 'Message viewer with a search set (and every viewer key above it does not take)',
  switch: 'Address switcher (s)',
  attachment: 'Choosing an attachment to save (a)',
  overwrite: 'Saving over a file that exists (a)',
  confirm: 'Questions (delete, new address, forget)',
  forgetAccount: 'Forgetting an address its provider can delete (x on a mail.tm address)',
  help: 'Help screen',
  global: 'Everywhere',
};

/** The screens a newcomer meets first: the README's table has these, docs/app.md every screen. */
export const MAIN_SCREENS: readonly Screen[] = ['picker', 'inbox', 'viewer', 'global'];

/**
 * The keys as Markdown tables, one per screen (of `screens`, default all), for the docs: generated so
 * they cannot drift.
 */
export function keymapMarkdown(screens?: readonly Screen[]): string {
  const parts: string[] = [];
  for (const [screen, title] of Object.entries(SCREEN_TITLES) as [Screen, string][]) {
    if (screens && !screens.includes(screen)) continue;
    parts.push(`**${title}**`, '', '| Keys | Action |', '|---|---|');
    for (const row of helpRows(screen, false)) {
      const keys = row.keys
        .split(' / ')
        .map((k) => `\`${k === '|' ? '\\|' : k}\``)
        .join(', ');
      parts.push(`| ${keys} | ${row.description} |`);
    }
    parts.push('');
  }
  return parts.join('\n');
}
