/**
 * The settings table of docs/server/README.md names every flag `serve` takes (its parseArgs options,
 * SERVE_OPTIONS), so a flag added to serve cannot be left out of it: the limit, cap, metrics and log
 * flags once were (issue 40.7).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVE_OPTIONS } from '../../src/server/config/serve-config';

const page = readFileSync(new URL('../../docs/server/README.md', import.meta.url), 'utf8');

/** The flags in the first column of the page's settings table (`--flag ARG` / `--other`). */
function tableFlags(): Set<string> {
  const table = page.slice(page.indexOf('## Settings'), page.indexOf('\n## ', page.indexOf('## Settings') + 1));
  const flags = new Set<string>();
  for (const row of table.split('\n').filter((l) => l.startsWith('| `--'))) {
    const first = row.split(/(?<!\\)\|/)[1] ?? '';
    for (const m of first.matchAll(/--([a-z][a-z-]*)/g)) flags.add(m[1]!);
  }
  return flags;
}

describe('the settings table of docs/server/README.md', () => {
  it('names every flag of serve', () => {
    const documented = tableFlags();
    const shown = Object.keys(SERVE_OPTIONS).filter((flag) => flag !== 'help' && flag !== 'version');
    expect(shown.filter((flag) => !documented.has(flag))).toEqual([]);
  });
});
