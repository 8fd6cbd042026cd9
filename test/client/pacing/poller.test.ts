import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, createPoller, type FailureVerdict, type PollStatus } from '../../../src/client/pacing/poller';

/** A task whose calls the test settles by hand, so "in flight" is under the test's control. */
function controllableTask() {
  const pending: { resolve: (v: number) => void; reject: (e: unknown) => void }[] = [];
  let calls = 0;
  const task = () =>
    new Promise<number>((resolve, reject) => {
      calls += 1;
      pending.push({ resolve, reject });
    });
  return {
    task,
    calls: () => calls,
    inFlight: () => pending.length,
    async resolve(value = 1) {
      pending.shift()!.resolve(value);
      await vi.advanceTimersByTimeAsync(0);
    },
    async reject(error: unknown) {
      pending.shift()!.reject(error);
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

class Fail extends Error {
  constructor(readonly verdict: FailureVerdict) {
    super(verdict.message);
  }
}
const classify = (e: unknown): FailureVerdict => (e instanceof Fail ? e.verdict : { message: 'boom' });

describe('poller', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('checks at once on start, then once per interval', async () => {
    const t = controllableTask();
    const results: number[] = [];
    const p = createPoller({ intervalMs: 5000, task: t.task, onResult: (v) => results.push(v), classify });
    p.start();
    expect(t.calls()).toBe(1);
    await t.resolve(7);
    expect(results).toEqual([7]);
    expect(p.status().phase).toBe('waiting');
    await vi.advanceTimersByTimeAsync(4999);
    expect(t.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(2);
    p.stop();
  });

  it('never runs two checks at once, even when refresh is pressed repeatedly or the check is slow', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 1000, task: t.task, onResult: () => {}, classify });
    p.start();
    expect(p.refresh()).toBe(false);
    expect(p.refresh()).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000); // a hung request: no interval tick may start another
    expect(t.calls()).toBe(1);
    expect(t.inFlight()).toBe(1);
    await t.resolve();
    expect(p.refresh()).toBe(true);
    expect(t.calls()).toBe(2);
    expect(t.inFlight()).toBe(1);
    p.stop();
  });

  it('refresh runs a check now instead of waiting for the interval', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 60_000, task: t.task, onResult: () => {}, classify });
    p.start();
    await t.resolve();
    await vi.advanceTimersByTimeAsync(10);
    expect(p.refresh()).toBe(true);
    expect(t.calls()).toBe(2);
    await t.resolve();
    // The interval restarts from the refresh: no extra check one tick later.
    await vi.advanceTimersByTimeAsync(59_999);
    expect(t.calls()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(3);
    p.stop();
  });

  it('backs off exponentially with jitter on failure, capped at 60 s, and recovers', async () => {
    const t = controllableTask();
    const statuses: PollStatus[] = [];
    const p = createPoller({
      intervalMs: 5000,
      task: t.task,
      onResult: () => {},
      onStatus: (s) => statuses.push(s),
      classify,
      random: () => 0.5,
    });
    p.start();
    const delays: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const before = Date.now();
      await t.reject(new Error('down'));
      const status = p.status();
      expect(status.phase).toBe('retrying');
      expect(status.error).toBe('boom');
      delays.push(status.nextAt! - before);
      await vi.advanceTimersByTimeAsync(status.nextAt! - Date.now());
      expect(t.calls()).toBe(i + 2);
    }
    // base 2 s doubling, equal jitter at 0.5 = 75 % of the step, never above 60 s.
    expect(delays).toEqual([1500, 3000, 6000, 12000, 24000, 45000, 45000, 45000]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60_000);
    await t.resolve();
    expect(p.status()).toMatchObject({ phase: 'waiting', failures: 0, error: null });
    p.stop();
  });

  it('jitter stays within [half, full] of the step and the cap holds for any random value', () => {
    for (const r of [0, 0.25, 0.999999]) {
      for (let n = 1; n < 20; n += 1) {
        const step = Math.min(60_000, 2000 * 2 ** (n - 1));
        const d = backoffDelay(n, 2000, 60_000, () => r);
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
      }
    }
  });

  it('honours Retry-After on 429 and does not let refresh cut it short', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 1000, task: t.task, onResult: () => {}, classify, random: () => 0 });
    p.start();
    await t.reject(new Fail({ message: 'Rate limited', retryAfterMs: 30_000 }));
    expect(p.status()).toMatchObject({ phase: 'retrying', rateLimited: true, error: 'Rate limited' });
    expect(p.refresh()).toBe(false);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(t.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(2);
    await t.resolve();
    expect(p.status().rateLimited).toBe(false);
    p.stop();
  });

  it('refresh during an ordinary backoff retries at once', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 1000, task: t.task, onResult: () => {}, classify });
    p.start();
    await t.reject(new Error('offline'));
    expect(p.refresh()).toBe(true);
    expect(t.calls()).toBe(2);
    p.stop();
  });

  it('stops for good on a fatal verdict (expired session) and ignores refresh', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 1000, task: t.task, onResult: () => {}, classify });
    p.start();
    await t.reject(new Fail({ message: 'The session has expired', stop: true }));
    expect(p.status()).toMatchObject({ phase: 'stopped', stopReason: 'The session has expired' });
    expect(p.refresh()).toBe(false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.calls()).toBe(1);
  });

  it('holds on a verdict asking again cannot fix (a wrong base URL): no check by itself, refresh asks again', async () => {
    const t = controllableTask();
    const p = createPoller({ intervalMs: 5000, task: t.task, onResult: () => undefined, classify });
    p.start();
    await t.reject(new Fail({ message: 'That address answered with a web page', hold: true }));
    expect(p.status()).toMatchObject({
      phase: 'held',
      error: 'That address answered with a web page',
      nextAt: null,
      failures: 1,
    });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(t.calls()).toBe(1);
    expect(p.refresh()).toBe(true);
    expect(t.calls()).toBe(2);
    await t.resolve(1);
    expect(p.status().phase).toBe('waiting');
    p.stop();
  });

  it('drops the result of a check that was pending when stopped', async () => {
    const t = controllableTask();
    const results: number[] = [];
    const p = createPoller({ intervalMs: 1000, task: t.task, onResult: (v) => results.push(v), classify });
    p.start();
    p.stop('left');
    await t.resolve(3);
    expect(results).toEqual([]);
    expect(p.status()).toMatchObject({ phase: 'stopped', stopReason: 'left' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.calls()).toBe(1);
  });

  it('survives a task that throws synchronously and a consumer that throws', async () => {
    let n = 0;
    const p = createPoller({
      intervalMs: 1000,
      task: () => {
        n += 1;
        if (n === 1) throw new Error('sync');
        return Promise.resolve(n);
      },
      onResult: () => {
        throw new Error('consumer bug');
      },
      classify,
      random: () => 0,
    });
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.status().phase).toBe('retrying');
    await vi.advanceTimersByTimeAsync(1000);
    expect(n).toBe(2);
    expect(p.status().phase).toBe('waiting');
    p.stop();
  });
});
