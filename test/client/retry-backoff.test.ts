/**
 * The GET retry backoff, timed where it matters: on the server. src/client/tempmail/tempmail-client.ts promises (calculateDelay)
 * that retry n (n = 1, 2, ...) waits base * 2^(n-1) plus a jitter in [0, base/4), capped at 30 s, when the
 * answer has no Retry-After. A fixture server fails the first requests (503, or a reset connection), then
 * answers, and records when each request arrived; the gaps between arrivals are that wait plus one
 * loopback round trip.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { sendJson, startFixtureServer, type FixtureServer } from './fixture-server';

const TOKEN = 'tok_backoff_0123456789abcdef';
// Big enough that scheduling noise is small next to it, small enough that 3 retries take ~1.5 s.
const BASE_MS = 200;
const RETRIES = 3;
const JITTER_MS = BASE_MS / 4;
// Timers fire on whole milliseconds of a loop clock that may lag performance.now() by a little.
const CLOCK_SLACK_MS = 2;
// Generous: only a broken schedule (e.g. got's own 1 s default instead of our base) should cross it.
const OVERHEAD_ALLOWANCE_MS = 500;

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv?.close());

/** The promised wait before retry n (1-based), without jitter. */
const promised = (n: number) => BASE_MS * 2 ** (n - 1);

for (const failure of ['503', 'reset'] as const) {
  describe(`GET retries after ${failure === '503' ? 'a 503 without Retry-After' : 'a reset connection'}`, () => {
    it(`waits base*2^(n-1) (+ jitter < base/4) before retry n, so the gaps grow`, async () => {
      const arrivals: number[] = [];
      srv.handle((_req, res, raw) => {
        arrivals.push(performance.now());
        if (arrivals.length <= RETRIES) {
          if (failure === '503') sendJson(res, 503, { status: 'error', error: 'storage_unavailable' });
          else raw.socket.destroy();
        } else sendJson(res, 200, { status: 'success', messages: [] });
      });
      const api = createApi({ baseUrl: srv.baseUrl, retries: RETRIES, retryBaseDelayMs: BASE_MS });

      await expect(api.checkMail(TOKEN)).resolves.toEqual([]);
      expect(arrivals).toHaveLength(RETRIES + 1);

      const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] ?? t));
      gaps.forEach((gap, i) => {
        const n = i + 1;
        const why = `gap before retry ${n}: ${gap.toFixed(1)} ms (all: ${gaps.map((g) => g.toFixed(0)).join(', ')})`;
        expect(gap, why).toBeGreaterThanOrEqual(promised(n) - CLOCK_SLACK_MS);
        expect(gap, why).toBeLessThan(promised(n) + JITTER_MS + OVERHEAD_ALLOWANCE_MS);
      });
      // Growth: the smallest next wait (2x) is larger than the largest current one (1x + base/4), by
      // base*2^(n-1) - base/4 >= 150 ms here; only a stall that long on this loopback could hide it.
      for (let i = 1; i < gaps.length; i += 1) {
        expect(gaps[i], `gaps ${gaps.map((g) => g.toFixed(0)).join(', ')} should grow`).toBeGreaterThan(
          gaps[i - 1] ?? Infinity,
        );
      }
    });
  });
}
