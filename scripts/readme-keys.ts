/**
 * Writes the keys table generated from the keymap into README.md between its markers, so the README can
 * never drift from the keys the app answers to (test/tui/keymap/keymap.test.ts fails when it has).
 * Run: `npx tsx scripts/readme-keys.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { keymapMarkdown } from '../src/tui/keymap/keymap';

const path = new URL('../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const block = /(<!-- keys:start -->\n)[\s\S]*?(<!-- keys:end -->)/;
if (!block.test(readme)) throw new Error('README.md has no <!-- keys:start --> ... <!-- keys:end --> block');
writeFileSync(path, readme.replace(block, (_, start: string, end: string) => `${start}${keymapMarkdown().trim()}\n${end}`));
