/**
 * Where a server program from a Debian package is (nginx, haproxy) for a test that runs it, or the
 * words saying what to install: a test without its program says so by name and package, it never
 * throws an ENOENT at the first spawn. A developer's run leaves such a test out, loudly; CI fails.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Debian puts server programs, looked in after PATH (a user's PATH often has no sbin). */
export const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin'];

export type Lookup = { path: string; missing?: undefined } | { path?: undefined; missing: string };

/** `name` in the directories of `searchPath` (PATH's syntax; default PATH, then /usr/sbin and /usr/bin). */
export function findDebianProgram(
  name: string,
  pkg: string,
  searchPath = [process.env.PATH ?? '', ...SYSTEM_DIRS].join(delimiter),
): Lookup {
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
      accessSync(path, constants.X_OK);
      return { path };
    } catch {
      // Not there, or not a program we may run: the next directory.
    }
  }
  return { missing: `${name} is not installed: install the ${pkg} package (apt-get install ${pkg})` };
}

/**
 * The program, or undefined after saying loudly that `testFile` is left out and what to install; under
 * CI=true a missing program is an error instead (CI must run every test).
 */
export function requireDebianProgram(name: string, pkg: string, testFile: string): string | undefined {
  const found = findDebianProgram(name, pkg);
  if (found.path) return found.path;
  if (process.env.CI === 'true') throw new Error(`CI: ${found.missing}; ${testFile} must run in CI.`);
  const bar = '!'.repeat(100);
  console.warn(`\n${bar}\n!! SKIPPED: ${testFile}. ${found.missing}.\n${bar}\n`);
  return undefined;
}
