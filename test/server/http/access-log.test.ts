/**
 * The access log names what was asked for, never a token. A token sent in the query or a body was kept
 * out already; one sent in the URL path (`/check-mail/<token>`, as some temp-mail APIs take it, or a
 * client misconfigured into building such URLs) was written verbatim. Read on the real log output of the
 * built `serve`, as an operator would see it.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

describe('the access log of serve', () => {
  it('redacts a token in the URL path, as it does one in the query, and still says which route was asked', async () => {
    const dir = await cleanup.tempDir('tempmail-access-log-');
    const proc = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p, 'SIGKILL'));
    const { token } = await newSession(proc.baseUrl);
    const paths = [
      `/check-mail/${token}`,
      `/check-mail/${token}/`,
      `/read-mail/${token}/3`,
      `/api/check-mail/${token}`,
      `/${token}`,
      `/${encodeURIComponent(token)}%2Fx`,
      `/check-mail/${token.slice(0, 20)}`,
      `/Check-Mail/${token}?token=${token}`,
    ];
    for (const path of paths) expect((await call(proc.baseUrl, path)).status, path).toBe(404);
    await call(proc.baseUrl, '/check-mail', { query: { token } });
    const log = await waitFor(
      () => {
        const text = proc.stderr();
        return (text.match(/ http GET /g) ?? []).length >= paths.length + 1 ? text : undefined;
      },
      { message: 'one access-log line per request' },
    );
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(0, 20));
    expect(log).toContain('http GET /check-mail/[redacted] 404 not_found');
    expect(log).toContain('http GET /read-mail/[redacted] 404 not_found');
    expect(log).toContain('http GET /api/[redacted] 404 not_found');
    expect(log).toContain('http GET /[redacted] 404 not_found');
    expect(log).toMatch(/http GET \/check-mail 200 \d+ms/);
    // An ordinary unknown route is still named.
    await call(proc.baseUrl, '/favicon.ico');
    await waitFor(() => proc.stderr().includes('http GET /favicon.ico 404 not_found'), { message: 'the favicon line' });
  });
});
