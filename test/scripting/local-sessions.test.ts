/**
 * The app saves addresses of its in-process local service under "local:<data dir>" (its HTTP port
 * changes every run). A command that may not run that service (no io.openLocal: over SSH, and this
 * in-process runner) passes over those addresses: the newest reachable one is used, and naming a local
 * one says why it cannot be used. The built commands reach it: test/e2e/local-scripts.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { serviceKey } from '../../src/tui/shell/run-app';
import { startTestService, type TestService } from '../harness/service';
import { makeRunner, type Runner } from './run';

let svc: TestService;
let r: Runner;
beforeAll(async () => {
  svc = await startTestService();
  r = makeRunner();
});
afterAll(async () => {
  r.cleanup();
  await svc.close();
});

describe("saved addresses of the app's local service", () => {
  it('are skipped by list/wait without --address, and named as local with --address', async () => {
    const store = openSavedSessions({ env: r.env });
    const reachable = await createApi({ baseUrl: svc.baseUrl }).createSession();
    store.save(reachable, svc.baseUrl);
    // Saved after, so newest: what the app writes in local mode.
    const key = serviceKey(undefined, r.env);
    expect(key).toBe(`local:${r.home}/data`);
    store.save(
      { email: 'local-one@tempmail.test', token: 'local-token-123', expiresAt: new Date(Date.now() + 3_600_000) },
      key,
    );

    const listed = await r.run('list', []);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(`No messages yet for ${reachable.email}`);
    const named = await r.run('list', ['--address', 'local-one@tempmail.test']);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("belongs to the app's built-in local service");
    expect(named.stderr).not.toContain('local-token-123');
  });
});
