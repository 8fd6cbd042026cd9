/**
 * The doc errors issue 40 found stay fixed: no doc installs from the npm registry (the package is not
 * published), every path of the deploy files is /etc/tempmail-tui/, /health is not said to ask the
 * database at each call, the SMTP refusal reasons name `blocked`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, 'docs/server'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/server/${f}`),
  ...readdirSync(join(root, 'scripts/deploy')).map((f) => `scripts/deploy/${f}`),
];

describe('the doc errors of issue 40', () => {
  it('are not back', () => {
    const found: string[] = [];
    for (const file of docs) {
      for (const [i, line] of read(file).split('\n').entries()) {
        if (/npm (install|i) (-g|--global) tempmail-tui\b/.test(line)) found.push(`${file}:${i + 1} registry install`);
        if (line.includes('/etc/tempmail/')) found.push(`${file}:${i + 1} /etc/tempmail/`);
      }
    }
    expect(found).toEqual([]);
    expect(read('docs/server/several-instances.md')).toContain('`/health` asks the database at most once a second');
    expect(read('docs/server/operations.md')).toMatch(
      /tempmail_messages_refused_total` \| counter \| `reason`:[^\n]*`blocked`/,
    );
  });
});
