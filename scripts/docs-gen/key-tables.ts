/**
 * The keys tables of the docs, generated from the keymap: which file holds which screens, between which
 * markers. scripts/readme-keys.ts writes them; test/docs/generated.test.ts checks them.
 */
import { keymapMarkdown, MAIN_SCREENS } from '../../src/tui/keymap/keymap';

export interface KeyTable {
  /** The file, from the repository's root. */
  file: string;
  /** The name in its markers: `<!-- keys:start -->` or `<!-- keys:main:start -->`. */
  marker: string;
  /** The generated tables. */
  markdown(): string;
}

export const KEY_TABLES: readonly KeyTable[] = [
  { file: 'README.md', marker: 'keys:main', markdown: () => keymapMarkdown(MAIN_SCREENS) },
  { file: 'docs/app.md', marker: 'keys', markdown: () => keymapMarkdown() },
];

const block = (marker: string) => new RegExp(`(<!-- ${marker}:start -->\\n)[\\s\\S]*?(<!-- ${marker}:end -->)`);

/** The table between the markers of `table` in `text`, or undefined when the markers are missing. */
export function readKeyTable(text: string, table: KeyTable): string | undefined {
  return block(table.marker)
    .exec(text)?.[0]
    .replace(/^<!--[^\n]*\n/, '')
    .replace(/<!--[^\n]*$/, '')
    .trim();
}

/** `text` with the generated table of `table` between its markers. */
export function writeKeyTable(text: string, table: KeyTable): string {
  const re = block(table.marker);
  if (!re.test(text))
    throw new Error(`${table.file} has no <!-- ${table.marker}:start --> ... <!-- ${table.marker}:end --> block`);
  return text.replace(re, (_, start: string, end: string) => `${start}${table.markdown().trim()}\n${end}`);
}
