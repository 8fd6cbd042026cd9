/**
 * `new` against the reference service when its create-session budget is spent: exit 1, and the line says
 * how long the service asked to wait (its Retry-After), so a script or its user knows when to try again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../harness/service';
import { makeRunner, type Runner } from '../run';

let svc: TestService;
let r: Runner;
beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1 });
  r = makeRunner();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await svc.close();
});

it('a 429 on new says when to try again', async () => {
  const base = ['--base-url', svc.baseUrl, '-q'];
  expect((await r.run('new', base)).code).toBe(0);
  const limited = await r.run('new', base);
  expect(limited).toMatchObject({ code: 1, stdout: '' });
  expect(limited.stderr).toMatch(
    /^tempmail-tui new: Too many requests to the service; try again in \d+ s; or try another provider \(tempmail-tui providers\)\n$/,
  );
});
