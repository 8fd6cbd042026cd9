/** Run by scrub-env.test.ts with the session variables set: a child of a test must see none of them. */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { DEVELOPER_SESSION_VARS } from './session-vars';

it("a test's child sees no developer session variable", () => {
  const seen = JSON.parse(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(JSON.stringify(process.env))'], { encoding: 'utf8' }),
  );
  expect(DEVELOPER_SESSION_VARS.filter((name) => seen[name] !== undefined)).toEqual([]);
});
