/**
 * Where the documentation keeps what is generated, and how it is written in: the pictures
 * (docs/screens/<name>.svg) and the text captures, between `<!-- capture:<name> -->` and
 * `<!-- /capture:<name> -->` in any Markdown file of the repository's documentation.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENS_DIR = join(ROOT, 'docs', 'screens');

/** The Markdown files of the documentation: the top-level ones and everything under docs/. */
export function docFiles(root = ROOT): string[] {
  const top = readdirSync(root)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, f));
  const under = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return under(path);
      return e.name.endsWith('.md') ? [path] : [];
    });
  return [...top, ...under(join(root, 'docs'))].sort();
}

/** A path as the repository writes it (`docs/app.md`). */
export const repoPath = (path: string, root = ROOT) => relative(root, path).split('\\').join('/');

const markers = (name: string) => [`<!-- capture:${name} -->`, `<!-- /capture:${name} -->`] as const;

/** The names of the text captures `markdown` holds, in order. */
export function captureNames(markdown: string): string[] {
  return [...markdown.matchAll(/<!-- capture:([a-z-]+) -->/g)].map((m) => m[1]!);
}

/** The capture between the markers of `name` (fence removed), or undefined without markers. */
export function readCapture(markdown: string, name: string): string | undefined {
  const [open, close] = markers(name);
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start < 0 || end < start) return undefined;
  const inner = markdown.slice(start + open.length, end).trim();
  return inner.replace(/^```text\n/, '').replace(/\n?```$/, '');
}

/**
 * `markdown` with the text between each pair of capture markers it holds replaced by that capture (in a
 * text fence). A marker naming a screen not in `captures` is an error: a capture nobody takes goes stale.
 */
export function writeCaptures(markdown: string, captures: Record<string, string>): string {
  let out = markdown;
  for (const name of captureNames(markdown)) {
    const text = captures[name];
    if (text === undefined)
      throw new Error(`<!-- capture:${name} --> names no screen (${Object.keys(captures).join(', ')})`);
    const [open, close] = markers(name);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (end < start) throw new Error(`${open} has no ${close} after it`);
    out = `${out.slice(0, start + open.length)}\n\`\`\`text\n${text}\n\`\`\`\n${out.slice(end)}`;
  }
  return out;
}
