/**
 * The generated parts of the docs are current, and the README stays a landing page (its length, its
 * screens first); its prose is not pinned here. The screens themselves are checked against the built
 * program by test/e2e/doc-screens.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureNames, docFiles, repoPath, ROOT } from '../../scripts/docs-gen/doc-files';
import { KEY_TABLES, readKeyTable } from '../../scripts/docs-gen/key-tables';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the generated parts of the docs', () => {
  for (const table of KEY_TABLES) {
    it(`${table.file}: the keys table is the keymap's (npx tsx scripts/readme-keys.ts)`, () => {
      const inFile = readKeyTable(read(table.file), table);
      expect(
        inFile,
        `${table.file} keeps the generated table between <!-- ${table.marker}:start --> and <!-- ${table.marker}:end -->`,
      ).toBeDefined();
      expect(inFile, `${table.file}'s keys table is stale: run npx tsx scripts/readme-keys.ts`).toBe(
        table.markdown().trim(),
      );
    });
  }

  it('docs/app.md shows the inbox and the viewer as text, captured in the mode it describes', () => {
    expect(captureNames(read('docs/app.md'))).toEqual(['inbox', 'viewer']);
  });
});

describe('README.md', () => {
  const readme = read('README.md');

  it('is a landing page: at most 200 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('shows the picker, the inbox and the viewer before its first section', () => {
    const top = readme.slice(0, readme.indexOf('\n## '));
    for (const name of ['picker', 'inbox', 'viewer']) expect(top).toContain(`docs/screens/${name}.svg`);
  });
});

describe('the examples', () => {
  it('never send mail with swaks, a tool most machines lack', () => {
    for (const file of docFiles()) expect(readFileSync(file, 'utf8'), repoPath(file)).not.toMatch(/\bswaks\b/);
  });
});
