/**
 * `new` when the address cannot be saved (the state directory unusable: permission denied, another
 * user's sessions.json, a file where the directory should be): the address was created on the service
 * all the same, so it is printed on stdout first, then the save error on stderr, exit 1.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { makeRunner, type Runner } from '../run';

let svc: TestService;
let r: Runner;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  r = makeRunner();
  // A file where the state directory should be: no saved session can be written, even as root.
  writeFileSync(join(r.home, 'state'), 'not a directory');
});
afterAll(async () => {
  r.cleanup();
  await svc.close();
});

describe('new, when saving fails', () => {
  it('prints the created address on stdout, then says on stderr that it was not saved, exit 1', async () => {
    const res = await r.run('new', ['--base-url', svc.baseUrl, '--prefix', 'unsaved-one', '--domain', 'tempmail.test']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('unsaved-one@tempmail.test\n');
    expect(res.stderr).toMatch(
      /^tempmail-tui new: unsaved-one@tempmail\.test was created but not saved \(.+\); list, wait, read and the app will not find it\n$/,
    );
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack
    // It does exist on the service: the name is held.
    expect((await call(svc.baseUrl, '/create-session', { form: { prefix: 'unsaved-one' } })).status).toBe(409);
  });

  it('--json prints the whole JSON document first; --show-token still gives the token (the only way to use it now)', async () => {
    const res = await r.run('new', ['--base-url', svc.baseUrl, '--json', '--show-token']);
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout) as { email: string; token: string; baseUrl: string; expiresAt: string };
    expect(out.email).toMatch(/@(tempmail|inbox)\.test$/);
    expect(out.baseUrl).toBe(svc.baseUrl);
    expect(Date.parse(out.expiresAt)).toBeGreaterThan(Date.now());
    expect((await call(svc.baseUrl, '/check-mail', { query: { token: out.token } })).status).toBe(200);
    expect(res.stderr).toContain(`${out.email} was created but not saved`);
    expect(res.stderr).not.toContain(out.token);
  });

  // Node's recursive mkdir loops forever (at full CPU) under a parent that refuses entries; ours fails.
  it.skipIf(!existsSync('/proc/self'))('a state directory under /proc fails at once instead of hanging', async () => {
    const res = await r.run('new', ['--base-url', svc.baseUrl, '--prefix', 'proc-home'], {
      env: { TEMPMAIL_TUI_HOME: '/proc/tempmail-test-home' },
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^proc-home@/);
    expect(res.stderr).toMatch(/was created but not saved \(.*(ENOENT|does not allow)/);
  });
});
