/**
 * The program's version: set at build time (scripts/build-config.mjs) and by the test runner; a bare
 * `tsx` run (`npm run dev`) has no build step, so it reads the package's own package.json.
 */
import { readFileSync } from 'node:fs';

declare const __VERSION__: string;

function sourceVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const version: unknown = JSON.parse(text).version;
    return typeof version === 'string' ? `${version}-dev` : 'dev';
  } catch {
    return 'dev';
  }
}

export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : sourceVersion();
