/**
 * Retry-After read as RFC 9110 says (delay-seconds or an HTTP-date), and a 429's wait kept to a floor of
 * a second that is the wait said: a hostile `0`, `-5`, `5, 5` or a past date no longer means a retry every
 * 250 ms while "waiting 1 s" is said. Fake timers: the waits are counted on the fake clock, not timed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorFromAnswer, parseRetryAfter } from '../../src/client/http/error-map';
import { pacedCall } from '../../src/client/pacing/rate-limit-wait';

afterEach(() => {
  vi.useRealTimers();
});

const NOW = Date.parse('2026-01-10T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds and the three HTTP-date forms', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Sat, 10 Jan 2026 12:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter('Saturday, 10-Jan-26 12:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter('Sat Jan 10 12:00:30 2026', NOW)).toBe(30);
    expect(parseRetryAfter('Sat, 10 Jan 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('takes no other shape for a Retry-After', () => {
    for (const bad of [
      '-5',
      '5, 5',
      '1.5',
      '+3',
      '5 s',
      'soon',
      '',
      '2026-01-10T12:00:30Z',
      'Sat, 10 Jan 2026 12:00:30 PST',
    ]) {
      expect(parseRetryAfter(bad, NOW), bad).toBeUndefined();
    }
  });
});

// A call answered 429 with `retryAfter` every time: the waits said and the fake time they took.
async function waitsFor(retryAfter: string): Promise<{ said: number[]; calls: number; elapsed: number }> {
  vi.useFakeTimers();
  const said: number[] = [];
  let calls = 0;
  const t0 = Date.now();
  const attempt = async (): Promise<never> => {
    calls += 1;
    throw errorFromAnswer({ status: 429, headers: { 'retry-after': retryAfter }, body: '' }, []);
  };
  const done = pacedCall(attempt, undefined, { perWaitMs: 10_000, totalMs: 30_000, onWait: (s) => said.push(s) }).catch(
    () => undefined,
  );
  await vi.advanceTimersByTimeAsync(40_000);
  await done;
  return { said, calls, elapsed: Date.now() - t0 };
}

describe('a 429 waited out', () => {
  it.each(['0', '-5', '5, 5', 'Thu, 01 Jan 1970 00:00:00 GMT'])(
    'Retry-After: %s waits at least the second it says',
    async (value) => {
      const { said, calls } = await waitsFor(value);
      // 30 s in all at one second or more a wait: 31 calls at most, not 121.
      expect(calls).toBeLessThanOrEqual(31);
      expect(said.every((s) => s >= 1)).toBe(true);
      expect(said.length).toBe(calls - 1);
    },
  );

  it('says the wait it takes', async () => {
    vi.useFakeTimers();
    const stamps: number[] = [];
    const said: number[] = [];
    const attempt = async (): Promise<never> => {
      stamps.push(Date.now());
      throw errorFromAnswer({ status: 429, headers: { 'retry-after': '0' }, body: '' }, []);
    };
    const done = pacedCall(attempt, undefined, {
      perWaitMs: 10_000,
      totalMs: 3_000,
      onWait: (s) => said.push(s),
    }).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    const gaps = stamps.slice(1).map((t, i) => (t - (stamps[i] ?? 0)) / 1000);
    expect(gaps).toEqual(said);
  });
});
