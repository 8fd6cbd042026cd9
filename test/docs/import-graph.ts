/**
 * The import graph of src/ and the layer rules it is checked against (docs/architecture.md, "Layers";
 * test/docs/layers.test.ts). The graph is read from the source text: every `import ... from`, `export ... from`, side-effect
 * `import '...'`, `import('...')` and `typeof import('...')` of a relative path, type-only ones included
 * (they are circles too, to a reader if not to the bundle). Statements are found where they start a line,
 * after block comments and line comments are dropped, and every path found must resolve to a file of src/,
 * so a statement the reader misread fails the test instead of passing unseen.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Edge = { from: string; to: string; line: number; text: string; typeOnly: boolean };

const EXTENSIONS = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];

/** The most source files one folder of src/ may hold at one level (its sub-folders' files not counted). */
export const MAX_FILES_AT_ONE_LEVEL = 14;

/** Each folder under root (root too) holding more than `max` source files at one level, with its count. */
export function crowdedFolders(root: string, max = MAX_FILES_AT_ONE_LEVEL): string[] {
  const counts = new Map<string, number>();
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
    const folder = relative(root, entry.parentPath) || '.';
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, count]) => count > max)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, count]) => `src/${folder === '.' ? '' : `${folder}/`}: ${count} source files`);
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The text with comments blanked out, line numbers kept. A comment starts a line or follows code after a space. */
function withoutComments(text: string): string {
  const blank = (match: string) => match.replace(/[^\n]/g, ' ');
  return text.replace(/^\s*\/\*[\s\S]*?\*\//gm, blank).replace(/^\s*\/\/.*$/gm, blank);
}

/** `import ... from '.x'` and `export ... from '.x'`, over several lines if need be. */
const FROM = /^(import|export)\b([^;'"`]*?)\bfrom\s*(['"])(\.{1,2}\/[^'"]*)\3/gm;
/** `import './x'`, for its effects. */
const BARE = /^import\s*(['"])(\.{1,2}\/[^'"]*)\1/gm;
/** `import('./x')` and `typeof import('./x')`, anywhere. */
const DYNAMIC = /\bimport\(\s*(['"])(\.{1,2}\/[^'"]*)\1\s*\)/g;

function resolveSpecifier(fromFile: string, specifier: string): string {
  const base = resolve(dirname(fromFile), specifier);
  for (const ext of EXTENSIONS) if (existsSync(base + ext) && /\.tsx?$/.test(base + ext)) return base + ext;
  throw new Error(`${fromFile}: cannot resolve the import '${specifier}'`);
}

/** `type { A }`, or `{ type A, type B as C }`: nothing of the module is loaded. */
function isTypeOnly(head: string): boolean {
  return /^\s*type\b/.test(head) || /^\s*\{\s*(type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?\s*)+\}\s*$/.test(head);
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Every relative import of each file under root, paths relative to root. */
export function importEdges(root: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(root)) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    const add = (index: number, specifier: string, typeOnly: boolean, statement: string) =>
      edges.push({
        from: relative(root, file),
        to: relative(root, resolveSpecifier(file, specifier)),
        line: lineOf(text, index),
        text: statement.replace(/\s+/g, ' ').trim(),
        typeOnly,
      });
    for (const match of text.matchAll(FROM)) add(match.index, match[4] ?? '', isTypeOnly(match[2] ?? ''), match[0]);
    for (const match of text.matchAll(BARE)) add(match.index, match[2] ?? '', false, match[0]);
    for (const match of text.matchAll(DYNAMIC)) {
      const typeOnly = /typeof\s*$/.test(text.slice(Math.max(0, match.index - 10), match.index));
      add(match.index, match[2] ?? '', typeOnly, match[0]);
    }
  }
  return edges;
}

/** A row of the doc's table: a folder (or root file) of src/ and the paths it may import. */
export type Row = { unit: string; mayImport: string[] };

/** The rows under "### Layers" in docs/architecture.md: `| \`a/\` | \`b/\`, \`c.ts\` |`, "nothing" or "everything". */
export function layerRows(markdown: string): Row[] {
  const section = markdown.split(/^### Layers$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  const rows: Row[] = [];
  for (const [, first, second] of section.matchAll(/^\| `([^`|]+)` \| ([^|]+) \|$/gm)) {
    const cell = second!.trim();
    const paths = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ unit: first!, mayImport: cell === 'everything' ? [''] : paths });
  }
  return rows;
}

export const topFolder = (path: string) => (path.includes('/') ? `${path.split('/')[0]}/` : path);

/** The row a file belongs to: the longest unit that holds it. */
function rowOf(rows: Row[], path: string): Row | undefined {
  return rows
    .filter((row) => path === row.unit || (row.unit.endsWith('/') && path.startsWith(row.unit)))
    .sort((a, b) => b.unit.length - a.unit.length)[0];
}

/** An import is allowed within its top folder, or to a path the rows of its unit and top folder allow. */
export function allowed(rows: Row[], edge: Edge): boolean {
  if (topFolder(edge.from) === topFolder(edge.to) && edge.from.includes('/')) return true;
  const own = [rowOf(rows, edge.from), rows.find((row) => row.unit === topFolder(edge.from))];
  return own.some((row) =>
    row?.mayImport.some((path) => edge.to === path || path === '' || (path.endsWith('/') && edge.to.startsWith(path))),
  );
}

export const where = (edge: Edge) =>
  `src/${edge.from}:${edge.line} imports src/${edge.to} (${edge.text}${edge.typeOnly ? ', type-only' : ''})`;

/** One circle through each strongly connected group of files, as the imports that make it. */
export function circles(edges: Edge[]): Edge[][] {
  const out = new Map<string, Edge[]>();
  for (const edge of edges) out.set(edge.from, [...(out.get(edge.from) ?? []), edge]);
  const found: Edge[][] = [];
  const inCircle = new Set<string>();
  for (const start of out.keys()) {
    if (inCircle.has(start)) continue;
    // Breadth-first from start: the shortest way back to it, if there is one.
    const via = new Map<string, Edge>();
    const queue = [start];
    for (let i = 0; i < queue.length && !via.has(start); i++) {
      for (const edge of out.get(queue[i]!) ?? []) {
        if (via.has(edge.to)) continue;
        via.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
    const last = via.get(start);
    if (!last) continue;
    const circle = [last];
    while (circle[0]!.from !== start) circle.unshift(via.get(circle[0]!.from)!);
    for (const edge of circle) inCircle.add(edge.from);
    found.push(circle);
  }
  return found;
}
