/**
 * Writes the documentation's screens, taken from the built program in a real pseudo-terminal
 * (test/e2e/capture.ts): the pictures docs/screens/<name>.svg, and the text captures between
 * `<!-- capture:<name> -->` and `<!-- /capture:<name> -->` in README.md and docs/**.md.
 *
 *   npx tsx scripts/capture-screens.ts           build, capture, write what changed
 *   npx tsx scripts/capture-screens.ts --check   build, capture, exit 1 if anything is stale
 *   --no-build                                   use dist/cli.js as it is
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { captureScreens } from '../test/e2e/capture';
import { repoPath, SCREENS_DIR } from './docs-gen/doc-files';
import { expectedFiles } from './docs-gen/doc-screens';

const USAGE = 'usage: npx tsx scripts/capture-screens.ts [--check] [--no-build]';

const current = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--check' && a !== '--no-build');
  if (unknown.length > 0) {
    process.stderr.write(`capture-screens: unknown argument ${unknown[0]}\n${USAGE}\n`);
    return 2;
  }
  if (!argv.includes('--no-build')) {
    // The capture is of the program as the source stands now, not of a stale bundle.
    execFileSync(process.execPath, [fileURLToPath(new URL('build.mjs', import.meta.url))], { stdio: 'inherit' });
  }
  const stale = [...expectedFiles(await captureScreens())].filter(([path, content]) => current(path) !== content);
  if (argv.includes('--check')) {
    if (stale.length === 0) {
      process.stdout.write('The screens in the docs match the app.\n');
      return 0;
    }
    process.stderr.write(
      `Stale: ${stale.map(([path]) => repoPath(path)).join(', ')}\nRun \`npx tsx scripts/capture-screens.ts\` to update them.\n`,
    );
    return 1;
  }
  mkdirSync(SCREENS_DIR, { recursive: true });
  for (const [path, content] of stale) writeFileSync(path, content);
  process.stdout.write(
    stale.length === 0
      ? 'The screens in the docs are up to date.\n'
      : `Wrote ${stale.map(([path]) => repoPath(path)).join(', ')}.\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`capture-screens: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
