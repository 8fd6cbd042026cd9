/**
 * The vocabulary of the key table (keymap-table.ts): the screens a key is read on, the commands, and
 * how one key and one binding are written down.
 */

/**
 * Where a key is read. `prefix`, `filter` and `search` are the text inputs; `confirm` is a y/n question;
 * `forgetAccount` asks whether forgetting an address also deletes it at its provider (mail.tm); `switch`
 * is the list of saved addresses; `attachment` asks which attachment to save; `overwrite` asks what to do
 * when its file name is taken in the download directory; `found` is the viewer while a search is set (it
 * takes every viewer key it does not bind itself, see INHERITS); `global` keys work on every screen and
 * come first.
 */
export type Screen =
  | 'picker'
  | 'prefix'
  | 'inbox'
  | 'filter'
  | 'viewer'
  | 'search'
  | 'found'
  | 'confirm'
  | 'forgetAccount'
  | 'help'
  | 'switch'
  | 'attachment'
  | 'overwrite'
  | 'global';

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
  | 'copyCode'
  | 'sample'
  | 'switch'
  | 'provider'
  | 'forget'
  | 'deleteAccount'
  | 'yank'
  | 'openLink'
  | 'save'
  | 'overwrite'
  | 'keepBoth'
  | 'filter'
  | 'headers'
  | 'link'
  | 'nextMessage'
  | 'previousMessage'
  | 'search'
  | 'nextMatch'
  | 'previousMatch'
  | 'clearSearch'
  | 'source'
  | 'part'
  | 'saveMessage'
  | 'suspend'
  | 'redraw'
  | 'back'
  | 'help'
  | 'quit'
  | 'yes'
  | 'no';

export type Special = 'upArrow' | 'downArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape';

/**
 * One key: a typed character (case matters), a special key, the digits 1-9, a Ctrl+letter, or any key
 * at all; `only` limits it to some of the binding's screens (`q` goes back in the viewer but quits the inbox).
 */
export type KeySpec = (
  | { char: string }
  | { special: Special }
  | { digits: '1-9' | '0-9' }
  | { ctrl: string }
  | { any: true }
) & {
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
  /**
   * Over SSH (src/tui/widgets/remote.tsx): what the key does there instead, or null when it does nothing
   * there (it is left out of the help). Default: the same as locally.
   */
  remote?: string | null;
}
