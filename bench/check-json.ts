/**
 * CI's check that the benchmark still runs: the JSON of `npm run bench -- --json` (a file named on the
 * command line, else stdin) must hold every key of the table as a finite number. The goals are
 * not checked: timing asserts do not belong in CI.
 */
import { readFileSync } from 'node:fs';
import { REQUIRED_KEYS } from './figures/key-table';

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
// npm prints its own banner before the output: the object is the last line that is one.
const line = text
  .split('\n')
  .reverse()
  .find((l) => l.trim().startsWith('{'));
const values = line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
const bad = REQUIRED_KEYS.filter((k) => typeof values?.[k] !== 'number' || !Number.isFinite(values[k]));
if (bad.length > 0) {
  process.stderr.write(`bench JSON lacks a numeric ${bad.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`bench JSON: all ${REQUIRED_KEYS.length} keys present and numeric\n`);
