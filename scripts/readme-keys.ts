/**
 * Writes the keys tables generated from the keymap into the docs, between their markers, so the docs can
 * never drift from the keys the app answers to (test/docs/generated.test.ts fails when they have):
 * README.md the screens a newcomer meets first (`<!-- keys:main:start -->` ... `<!-- keys:main:end -->`),
 * docs/app.md every screen (`<!-- keys:start -->` ... `<!-- keys:end -->`).
 * Run: `npx tsx scripts/readme-keys.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { KEY_TABLES, writeKeyTable } from './docs-gen/key-tables';

for (const table of KEY_TABLES) {
  const path = new URL(`../${table.file}`, import.meta.url);
  const text = readFileSync(path, 'utf8');
  const updated = writeKeyTable(text, table);
  if (updated !== text) {
    writeFileSync(path, updated);
    process.stdout.write(`${table.file}: keys table written.\n`);
  }
}
