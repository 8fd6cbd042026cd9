/**
 * The checks pushed mail asks for, against the real poller with a task the test settles by hand and
 * fake timers: at once after a quiet spell, one more after a check that was on its way (one that failed
 * too), never two within PUSH_FOLLOW_UP_MS, none once stopped.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPoller, type Poller } from '../../../src/client/pacing/poller';
import { PUSH_FOLLOW_UP_MS, pushedChecks, type PushedChecks } from '../../../src/tui/inbox/pushed-checks';

function setUp() {
  const pending: { resolve: () => void; reject: () => void }[] = [];
  let calls = 0;
  let pushed: PushedChecks | undefined;
  const poller: Poller = createPoller({
    intervalMs: 600_000,
    now: () => Date.now(),
    task: () =>
      new Promise<number>((resolve, reject) => {
        calls += 1;
        pending.push({ resolve: () => resolve(calls), reject: () => reject(new Error('down')) });
      }),
    onResult: () => undefined,
    onStatus: (status) => pushed?.phase(status.phase),
    classify: () => ({ message: 'boom' }),
  });
  pushed = pushedChecks(poller, PUSH_FOLLOW_UP_MS, () => Date.now());
  started.push(poller);
  return {
    poller,
    pushed,
    calls: () => calls,
    async answer() {
      pending.shift()!.resolve();
      await vi.advanceTimersByTimeAsync(0);
    },
    async fail() {
      pending.shift()!.reject();
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

/** setUp, its poller started and its first check answered. */
async function afterFirstCheck() {
  const t = setUp();
  t.poller.start();
  await t.answer();
  return t;
}

// The pollers of the test that ran, stopped after it.
const started: Poller[] = [];

describe('pushed checks', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    for (const poller of started.splice(0)) poller.stop();
    vi.useRealTimers();
  });

  it('checks at once when no check ended within PUSH_FOLLOW_UP_MS', async () => {
    const t = await afterFirstCheck();
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS);
    t.pushed.mail();
    expect(t.calls()).toBe(2);
  });

  it('mail during a check: one more check PUSH_FOLLOW_UP_MS after it ends, whatever comes meanwhile', async () => {
    const t = setUp();
    t.poller.start();
    for (let i = 0; i < 5; i++) t.pushed.mail();
    await t.answer();
    for (let i = 0; i < 5; i++) t.pushed.mail();
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS - 1);
    expect(t.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(2);
    await t.answer();
    // Nothing came during the second check: no third.
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS * 4);
    expect(t.calls()).toBe(2);
  });

  it('mail right after a check ended waits out the rest of PUSH_FOLLOW_UP_MS', async () => {
    const t = await afterFirstCheck();
    await vi.advanceTimersByTimeAsync(100);
    t.pushed.mail();
    t.pushed.mail();
    expect(t.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS - 101);
    expect(t.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(2);
  });

  it('a check that starts while one is due takes its place: none more within PUSH_FOLLOW_UP_MS', async () => {
    const t = await afterFirstCheck();
    t.pushed.mail(); // due in PUSH_FOLLOW_UP_MS
    t.poller.refresh(); // r pressed: this check finds the mail
    expect(t.calls()).toBe(2);
    await t.answer();
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS * 4);
    expect(t.calls()).toBe(2);
  });

  it('a check that failed ends too: mail during it gets one more PUSH_FOLLOW_UP_MS after, not at the backoff', async () => {
    const t = await afterFirstCheck();
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS);
    t.pushed.mail();
    expect(t.calls()).toBe(2);
    t.pushed.mail(); // during the check, which then fails
    await t.fail();
    expect(t.poller.status().phase).toBe('retrying');
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS - 1);
    expect(t.calls()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(3);
    // Mail right after the failure waits its turn like any other.
    await t.fail();
    t.pushed.mail();
    expect(t.calls()).toBe(3);
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS);
    expect(t.calls()).toBe(4);
  });

  it('asks for nothing once stopped, a due check included', async () => {
    const t = await afterFirstCheck();
    t.pushed.mail();
    t.pushed.stop();
    t.pushed.mail();
    await vi.advanceTimersByTimeAsync(PUSH_FOLLOW_UP_MS * 4);
    expect(t.calls()).toBe(1);
  });
});
