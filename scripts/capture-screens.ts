/**
 * Writes text captures of the inbox and the viewer into README.md, between the markers
 * `<!-- capture:inbox -->` ... `<!-- /capture:inbox -->` and `<!-- capture:viewer -->` ...
 * `<!-- /capture:viewer -->`, taken from the built app in a real pseudo-terminal (test/e2e/capture.ts).
 * Nothing else in README.md is touched.
 *
 *   npx tsx scripts/capture-screens.ts           build, capture, write README.md
 *   npx tsx scripts/capture-screens.ts --check   build, capture, exit 1 if README.md differs (times aside)
 *   --no-build                                   use dist/cli.js as it is
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CAPTURE_NAMES, captureScreens, maskVolatile, README, readCapture, writeCaptures } from '../test/e2e/capture';

const USAGE = 'usage: npx tsx scripts/capture-screens.ts [--check] [--no-build]';

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
  const captures = await captureScreens();
  const readme = readFileSync(README, 'utf8');
  if (argv.includes('--check')) {
    const stale = CAPTURE_NAMES.filter((name) => maskVolatile(readCapture(readme, name) ?? '') !== maskVolatile(captures[name]));
    if (stale.length === 0) {
      process.stdout.write('README.md captures match the app.\n');
      return 0;
    }
    for (const name of stale) {
      process.stderr.write(`README.md capture "${name}" differs from the app; it draws:\n${captures[name]}\n\n`);
    }
    process.stderr.write('Run `npx tsx scripts/capture-screens.ts` to update README.md.\n');
    return 1;
  }
  // A capture that differs only in clock times is kept as it is: no churn in README.md's history.
  for (const name of CAPTURE_NAMES) {
    const current = readCapture(readme, name);
    if (current !== undefined && maskVolatile(current) === maskVolatile(captures[name])) captures[name] = current;
  }
  const updated = writeCaptures(readme, captures);
  if (updated === readme) {
    process.stdout.write('README.md captures already up to date.\n');
  } else {
    writeFileSync(README, updated);
    process.stdout.write(`README.md: wrote the ${CAPTURE_NAMES.join(' and ')} captures.\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`capture-screens: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
