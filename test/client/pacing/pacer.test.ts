/** The pacer spaces request starts to a provider's documented rate (mail.tm: 8 a second). Fake timers: no clock is waited on. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPacer } from '../../../src/client/pacing/pacer';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('pacer', () => {
  it('starts at most 8 calls a second, in order, and lets a lone call through at once', async () => {
    const pacer = createPacer(8, () => Date.now());
    const started: number[] = [];
    const t0 = Date.now();
    const runs = Array.from({ length: 10 }, (_, i) => pacer.run(async () => started.push(Date.now() - t0) && i));
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(started).toEqual([0, 125, 250, 375, 500, 625, 750, 875, 1000, 1125]);
    // Idle for a while: the next call goes at once.
    await vi.advanceTimersByTimeAsync(5000);
    const before = started.length;
    void pacer.run(async () => started.push(Date.now() - t0));
    await vi.advanceTimersByTimeAsync(0);
    expect(started.length).toBe(before + 1);
  });

  it('0 a second means no spacing', async () => {
    const pacer = createPacer(0);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pacer.run(async () => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });
});
