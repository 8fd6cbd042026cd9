/**
 * What the documentation's screens should be, given a capture (test/e2e/capture.ts): every generated
 * file with its content. scripts/capture-screens.ts writes them; test/e2e/doc-screens.test.ts checks them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, SCREENS_DIR, writeCaptures } from './doc-files';
import { gridText, type Grid } from './grid';
import { gridToSvg } from './svg';

export const SCREEN_TITLES = {
  picker: 'tempmail-tui: the address picker, local mode, 100x30',
  inbox: 'tempmail-tui: an inbox with three messages, local mode, 100x30',
  viewer: 'tempmail-tui: an HTML message in the viewer, local mode, 100x30',
} as const;
export type DocScreen = keyof typeof SCREEN_TITLES;

/** Every generated file as it should be, path -> content: the pictures, and each Markdown file with captures. */
export function expectedFiles(screens: Record<DocScreen, Grid>): Map<string, string> {
  const names = Object.keys(SCREEN_TITLES) as DocScreen[];
  const files = new Map<string, string>();
  for (const name of names) files.set(join(SCREENS_DIR, `${name}.svg`), gridToSvg(screens[name], SCREEN_TITLES[name]));
  const texts = Object.fromEntries(names.map((name) => [name, gridText(screens[name])]));
  for (const path of docFiles()) {
    const markdown = readFileSync(path, 'utf8');
    const updated = writeCaptures(markdown, texts);
    if (updated !== markdown) files.set(path, updated);
  }
  return files;
}
