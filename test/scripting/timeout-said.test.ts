/**
 * Issue 36: `list` and `read` against a service that takes the connection and never answers. The error
 * names the wait (10 s, the client's timeout) and that is the wait taken: one try. Before, each GET that
 * timed out was tried twice more (got's retries), 32 s in all while the message said 10 s.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGate, type Gate } from '../harness/gate';
import { startTestService, type TestService } from '../harness/service';
import { makeRunner, type Runner } from './run';

let svc: TestService;
let gate: Gate;
let r: Runner;

beforeAll(async () => {
  svc = await startTestService();
  gate = await startGate(svc.baseUrl);
  gate.open();
  r = makeRunner();
});
afterAll(async () => {
  r.cleanup();
  await gate.close();
  await svc.close();
});

it('list and read of a service that never answers: the error says 10 s, and one try of each was made', async () => {
  const made = await r.run('new', ['--base-url', gate.url, '-q']);
  expect(made.code, made.stderr).toBe(0);
  gate.hold();
  const [list, read] = await Promise.all([r.run('list', []), r.run('read', ['1'])]);
  for (const res of [list, read]) {
    expect(res.code, res.stderr).not.toBe(0);
    expect(res.stderr).toContain('The service did not answer within 10 s');
  }
  // One connection each: no try after the timeout (each retry opened another).
  expect(gate.held()).toBe(2);
}, 30_000);
