/**
 * The docs hold together: every relative link and image in README.md, the files beside it and docs/
 * names a file that exists, every #anchor a heading of its file, every page of docs/ is reachable from
 * the README, and every Markdown file the code's comments and messages name exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docFiles, repoPath, ROOT } from '../../scripts/docs-gen/doc-files';

/** Markdown without its fenced code blocks: a `#` line there is no heading, a link no link. */
const unfenced = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
/** Markdown with fenced code blocks and code spans blanked: what looks like a link there is not one. */
const prose = (markdown: string) => unfenced(markdown).replace(/`[^`\n]*`/g, '');

/** The targets of a file's links and images, Markdown and HTML. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const md = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const html = [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  return [...md, ...html];
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of unfenced(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
const files = docFiles();
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));

/** Where each relative link of `file` leads: the path (absolute) and the anchor, if any. */
function relativeLinks(file: string): { raw: string; path: string; anchor?: string }[] {
  return linkTargets(text.get(file)!)
    .filter((t) => !EXTERNAL.test(t))
    .map((raw) => {
      const [path = '', anchor] = raw.split('#', 2);
      return { raw, path: path === '' ? file : resolve(dirname(file), decodeURIComponent(path)), anchor };
    });
}

describe('the docs', () => {
  it('are README.md, the files beside it and docs/**.md', () => {
    const names = files.map((f) => repoPath(f));
    for (const name of [
      'README.md',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      'SECURITY.md',
      'docs/app.md',
      'docs/architecture.md',
      'docs/server/http-api.md',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('link only to files that exist, and to anchors their headings make', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of relativeLinks(file)) {
        const where = `${repoPath(file)}: ${link.raw}`;
        if (!existsSync(link.path)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (link.anchor === undefined) continue;
        const target = text.get(link.path) ?? (link.path.endsWith('.md') ? readFileSync(link.path, 'utf8') : undefined);
        if (target === undefined) broken.push(`${where} (an anchor into a file that is not Markdown)`);
        else if (!headingAnchors(target).has(link.anchor)) broken.push(`${where} (no heading makes #${link.anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('can all be reached from README.md', () => {
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const link of relativeLinks(file)) if (text.has(link.path)) walk(link.path);
    };
    walk(join(ROOT, 'README.md'));
    expect(files.filter((f) => !reached.has(f)).map((f) => repoPath(f))).toEqual([]);
  });
});

describe('the code', () => {
  it('names only Markdown files the repository has', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const path = join(dir, e.name);
        if (e.isDirectory())
          return e.name === 'node_modules' || e.name === '.cache' || e.name === 'fixtures' ? [] : sources(path);
        return /\.(?:[cm]?[jt]sx?|sh|conf|service)$/.test(e.name) || e.name === 'run' ? [path] : [];
      });
    const missing: string[] = [];
    // This file's own examples name files that are not meant to exist.
    const checker = fileURLToPath(import.meta.url);
    for (const file of ['src', 'test', 'bench', 'scripts', '.ci']
      .flatMap((d) => sources(join(ROOT, d)))
      .filter((f) => f !== checker)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?<![\w./-])((?:[\w-]+\/)*[\w-]+\.md)\b/g)) {
        const named = join(ROOT, m[1]!);
        if (!existsSync(named) || !statSync(named).isFile()) missing.push(`${relative(ROOT, file)}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the link checker itself', () => {
  it('finds Markdown and HTML links outside code, and makes GitHub anchors', () => {
    const md =
      '# The `imap` object\n## What "250" means\n## Notes\n## Notes\n```sh\n[not](a.md)\n```\n' +
      'see [a](b.md#x) and `[c](d.md)`, ![pic](s.svg "t") <img src="p.svg"> [two\nlines](e.md)\n';
    expect(linkTargets(md)).toEqual(['b.md#x', 's.svg', 'e.md', 'p.svg']);
    expect([...headingAnchors(md)]).toEqual(['the-imap-object', 'what-250-means', 'notes', 'notes-1']);
    expect([...headingAnchors("# The service's zone: `serve` [HTTP API](x.md)")]).toEqual([
      'the-services-zone-serve-http-api',
    ]);
  });
});
