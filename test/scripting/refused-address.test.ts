/**
 * A saved address whose service no longer knows its token (the data dir wiped, as here: the service
 * restarted on a fresh one at the same port). `list`, `read` and `wait` say so in words, exit 1, and mark
 * the address in the saved list, as the app does; the token never shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { EXIT } from '../../src/scripting/io';
import { startTestService, type TestService } from '../harness/service';
import { makeRunner, type Runner } from './run';

let svc: TestService;
let r: Runner;
let address: string;
let token: string;

beforeAll(async () => {
  const first = await startTestService();
  r = makeRunner();
  address = (await r.run('new', ['--base-url', first.baseUrl, '-q'])).stdout.trim();
  token = openSavedSessions({ env: r.env }).listLive()[0]!.token;
  const port = Number(new URL(first.baseUrl).port);
  await first.close(); // removes its data dir: every session it knew is gone
  svc = await startTestService({ httpPort: port });
});
afterAll(async () => {
  r.cleanup();
  await svc.close();
});

const NO_LONGER = 'the service no longer knows';

describe('a saved address the service no longer knows', () => {
  it('list says so, exits 1 and marks it refused in the saved list', async () => {
    const before = openSavedSessions({ env: r.env }).listLive()[0]!;
    expect(before.email).toBe(address);
    expect(before.refusedAt).toBeUndefined();
    const listed = await r.run('list', []);
    expect(listed.code).toBe(EXIT.failed);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain(`tempmail-tui list: ${NO_LONGER} "${address}"`);
    expect(listed.stderr).toContain('`tempmail-tui new` makes another address');
    expect(openSavedSessions({ env: r.env }).listLive()[0]!.refusedAt).toBeInstanceOf(Date);
  });

  it('read and wait say the same, and wait does not keep retrying', async () => {
    const read = await r.run('read', ['1']);
    expect(read.code).toBe(EXIT.failed);
    expect(read.stderr).toContain(NO_LONGER);
    const waited = await r.run('wait', ['--timeout', '30', '--interval', '0.2']);
    expect(waited.code).toBe(EXIT.failed);
    expect(waited.stderr).toContain(`tempmail-tui wait: ${NO_LONGER} "${address}"`);
    expect(r.transcript.join('')).not.toContain(token);
  });

  it('a later good answer (a restored service) clears the mark', async () => {
    const store = openSavedSessions({ env: r.env });
    const created = await r.run('new', ['--base-url', svc.baseUrl, '-q']);
    const fresh = created.stdout.trim();
    store.markRefused(fresh, svc.baseUrl, new Date());
    expect(store.listLive().find((s) => s.email === fresh)!.refusedAt).toBeInstanceOf(Date);
    expect(await r.run('list', ['--address', fresh])).toMatchObject({ code: EXIT.ok });
    expect(store.listLive().find((s) => s.email === fresh)!.refusedAt).toBeUndefined();
    store.markRefused(fresh, svc.baseUrl, new Date());
    expect((await r.run('wait', ['--address', fresh, '--timeout', '0.5', '--interval', '0.2'])).code).toBe(EXIT.failed); // timed out
    expect(store.listLive().find((s) => s.email === fresh)!.refusedAt).toBeUndefined();
    // The refused one is still marked.
    expect(store.listLive().find((s) => s.email === address)!.refusedAt).toBeInstanceOf(Date);
  });
});
