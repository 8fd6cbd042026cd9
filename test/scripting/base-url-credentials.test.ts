/**
 * A base URL with `user:password@` (a service behind basic auth): the credentials reach the service and
 * stay in the saved file (later commands need them), but no printed base URL carries them: not `new
 * --json`, not a message naming the service, not a configuration error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../harness/service';
import { makeRunner, type Runner } from './run';

let svc: TestService;
let r: Runner;
let withCredentials: string;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  r = makeRunner();
  const url = new URL(svc.baseUrl);
  url.username = 'alice';
  url.password = 'pw-s3cret';
  withCredentials = url.href;
});
afterAll(async () => {
  r.cleanup();
  await svc.close();
});

describe('base URLs with credentials', () => {
  it('new --json prints the base URL without them; the saved file keeps them, and list still reaches the service', async () => {
    const res = await r.run('new', ['--base-url', withCredentials, '--json']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { email: string; baseUrl: string };
    expect(out.baseUrl).toBe(svc.baseUrl);
    expect(res.stdout + res.stderr).not.toContain('pw-s3cret');
    const saved = readFileSync(join(r.home, 'state', 'sessions.json'), 'utf8');
    expect(saved).toContain(`"baseUrl": "${withCredentials}"`);
    const list = await r.run('list', ['--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ address: out.email, messages: [] });
  });

  it('messages and configuration errors that name the service leave them out', async () => {
    const missing = await r.run('list', ['--base-url', withCredentials, '--address', 'nobody@tempmail.test']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`is not a saved live address for ${svc.baseUrl};`);
    const badScheme = await r.run('list', ['--base-url', 'ftp://alice:pw-s3cret@files.example/']);
    expect(badScheme.code).toBe(2);
    expect(badScheme.stderr).toContain('ftp://files.example/');
    const badUrl = await r.run('list', ['--base-url', 'http://alice:pw-s3cret@exa mple/']);
    expect(badUrl.code).toBe(2);
    for (const res of [missing, badScheme, badUrl]) expect(res.stdout + res.stderr).not.toContain('pw-s3cret');
  });
});
