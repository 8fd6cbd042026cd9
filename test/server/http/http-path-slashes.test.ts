/**
 * A request path is made of what any client sends, up to Node's 16 KiB header limit. Its trailing
 * slashes were cut with /\/+$/, which on "/a" + 16,000 slashes + "x" started over at every slash: about
 * a second of the event loop per request, so 50 such requests froze HTTP and SMTP for 40 s. The built
 * program in a child process (a frozen service cannot stop the test's clock), real HTTP over loopback.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

/** GET `path` exactly as given (no URL normalization on the way); resolves with the status. */
function get(baseUrl: string, path: string, agent: http.Agent): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('request paths', () => {
  it('answers 200 paths of 16,000 slashes in turn without freezing, and /health after them', async () => {
    const dir = await cleanup.tempDir('tempmail-http-slashes-');
    const proc = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p, 'SIGKILL'));
    const agent = cleanup.defer(new http.Agent({ keepAlive: true, maxSockets: 4 }), (a) => a.destroy());
    const path = `/a${'/'.repeat(16_000)}x`;
    let statuses: number[] | undefined;
    // (Killed by the cleanup while still frozen, the service resets what is left: not this test's report.)
    void Promise.all(Array.from({ length: 200 }, () => get(proc.baseUrl, path, agent))).then(
      (s) => (statuses = s),
      () => undefined,
    );
    await waitFor(() => statuses, { timeoutMs: 10_000, message: 'the 200 answers' });
    expect(new Set(statuses)).toEqual(new Set([404]));
    expect((await call(proc.baseUrl, 'health')).status).toBe(200);
    // The limit that bounds a path: past 16 KiB of request head, Node answers 431 itself.
    expect(await get(proc.baseUrl, `/a${'/'.repeat(17_000)}x`, agent)).toBe(431);
    // Trailing slashes still name the route.
    expect(await get(proc.baseUrl, '/domains///', agent)).toBe(200);
  });
});
