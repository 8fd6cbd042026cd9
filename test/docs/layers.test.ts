/**
 * The layers of src/, as docs/architecture.md states them in its table of what each folder may import,
 * hold in the code: no import, type-only ones included, goes where its folder's row does not allow, and no
 * file imports itself round a circle. The table is read from the doc, so the doc and the rule cannot
 * disagree; each failure names the import that breaks it (file, line, statement). And no folder of src/
 * holds more than 14 source files at one level (a folder holds one idea: past that, it holds several).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/docs-gen/doc-files';
import {
  allowed,
  circles,
  crowdedFolders,
  type Edge,
  importEdges,
  layerRows,
  MAX_FILES_AT_ONE_LEVEL,
  sourceFiles,
  topFolder,
  where,
} from './import-graph';

const SRC = join(ROOT, 'src');

describe('the layers of src/ (docs/architecture.md, "Layers")', () => {
  const rows = layerRows(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
  const edges = importEdges(SRC);

  it('the doc states a row for every folder and file at the top of src/', () => {
    expect(rows.length).toBeGreaterThan(5);
    const tops = new Set(sourceFiles(SRC).map((file) => topFolder(file.slice(SRC.length + 1))));
    expect([...tops].filter((top) => !rows.some((row) => row.unit === top))).toEqual([]);
  });

  it('no import goes where its folder may not import', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.filter((edge) => !allowed(rows, edge)).map(where)).toEqual([]);
  });

  it('no file imports itself round a circle, type-only imports included', () => {
    expect(circles(edges).map((circle) => circle.map(where))).toEqual([]);
  });

  it(`no folder holds more than ${MAX_FILES_AT_ONE_LEVEL} source files at one level`, () => {
    expect(crowdedFolders(SRC)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const rows = layerRows(
    '### Layers\n\n| folder | may import |\n| --- | --- |\n| `text/` | nothing |\n| `client/` | `text/` |\n| `tui/` | `client/`, `text/` |\n| `tui/shell/` | `server/` |\n| `server/` | `text/`, `scripting/x.ts` |\n| `cli.tsx` | everything |\n\n## Next',
  );
  const edge = (from: string, to: string): Edge => ({
    from,
    to,
    line: 3,
    text: `import { a } from '${to}'`,
    typeOnly: false,
  });

  it('reads the table and applies each row', () => {
    expect(rows.map((row) => row.unit)).toEqual(['text/', 'client/', 'tui/', 'tui/shell/', 'server/', 'cli.tsx']);
    expect(allowed(rows, edge('tui/a.ts', 'client/b.ts'))).toBe(true);
    expect(allowed(rows, edge('tui/inbox/a.ts', 'tui/shell/b.ts'))).toBe(true);
    expect(allowed(rows, edge('client/a.ts', 'tui/b.ts'))).toBe(false);
    expect(allowed(rows, edge('text/a.ts', 'client/b.ts'))).toBe(false);
    expect(allowed(rows, edge('tui/shell/a.ts', 'server/b.ts'))).toBe(true);
    expect(allowed(rows, edge('tui/inbox/a.ts', 'server/b.ts'))).toBe(false);
    expect(allowed(rows, edge('server/a.ts', 'scripting/x.ts'))).toBe(true);
    expect(allowed(rows, edge('server/a.ts', 'scripting/y.ts'))).toBe(false);
    expect(allowed(rows, edge('cli.tsx', 'server/a.ts'))).toBe(true);
    expect(allowed(rows, edge('server/a.ts', 'cli.tsx'))).toBe(false);
  });

  it('names each folder with more than 14 source files at one level, its sub-folders not counted', () => {
    const root = mkdtempSync(join(tmpdir(), 'tempmail-layers-'));
    try {
      const files = (folder: string, count: number, ext = 'ts') => {
        mkdirSync(join(root, folder), { recursive: true });
        for (let i = 0; i < count; i++) writeFileSync(join(root, folder, `f${i}.${ext}`), '');
      };
      files('.', 14);
      files('full', 14, 'tsx');
      files('full/inner', 14);
      files('crowded', 15);
      files('crowded/inner', 15);
      files('notes', 20, 'md');
      expect(crowdedFolders(root)).toEqual(['src/crowded/: 15 source files', 'src/crowded/inner/: 15 source files']);
      files('.', 15);
      expect(crowdedFolders(root)[0]).toBe('src/: 15 source files');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('names each import of a circle', () => {
    const found = circles([
      edge('a.ts', 'b.ts'),
      { ...edge('b.ts', 'c.ts'), typeOnly: true },
      edge('c.ts', 'a.ts'),
      edge('c.ts', 'd.ts'),
    ]);
    expect(found.map((circle) => circle.map(where))).toEqual([
      [
        "src/a.ts:3 imports src/b.ts (import { a } from 'b.ts')",
        "src/b.ts:3 imports src/c.ts (import { a } from 'c.ts', type-only)",
        "src/c.ts:3 imports src/a.ts (import { a } from 'a.ts')",
      ],
    ]);
  });
});
