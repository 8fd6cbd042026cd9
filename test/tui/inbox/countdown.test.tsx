/**
 * Countdowns floor, everywhere, and change on the second (on the expiry's minute while they say whole
 * minutes, ten minutes or more before it, and then draw nothing in between): the header is drawn from an injected clock
 * standing at x.999 s, and only timers are faked (the clock is the test's, so nothing else needs to be).
 * A shown value that is one second high for most of each second is what this guards against.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PollStatus } from '../../../src/client/pacing/poller';
import { SessionHeader } from '../../../src/tui/inbox/session-header';
import { renderAt, type Screen } from '../ui';

// Expiry on a whole second, as the wire gives it (YYYY-MM-DD HH:MM:SS).
const EXPIRES = Date.UTC(2026, 0, 1, 12, 0, 0);
const session = { email: 'clock@tempmail.test', token: 'never-shown', expiresAt: new Date(EXPIRES) };
const idle: PollStatus = {
  phase: 'waiting',
  lastSuccessAt: null,
  nextAt: null,
  failures: 0,
  error: null,
  rateLimited: false,
  stopReason: null,
};

let screen: Screen | undefined;
let now = 0;
const clock = () => now;
// React and Ink run their work on setImmediate (not faked): let it happen.
const flush = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});
afterEach(() => {
  screen?.unmount();
  screen = undefined;
  vi.useRealTimers();
});

async function header(poll: PollStatus): Promise<Screen> {
  screen = renderAt(<SessionHeader session={session} poll={poll} intervalMs={5000} clock={clock} columns={80} />);
  await flush();
  return screen;
}

/** Moves the clock and the timers together, a millisecond at a time, then lets React draw. */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    now += 1;
    vi.advanceTimersByTime(1);
  }
  await flush();
  await flush();
}

describe('countdowns', () => {
  it('the expiry countdown turns just after the whole second: from 59.001 s left (x.999 on the clock)', async () => {
    now = EXPIRES - 59_001;
    const s = await header(idle);
    expect(s.frame()).toContain('expires in 0:59');
    await advance(25); // 58.976 s left
    expect(s.frame()).toContain('expires in 0:58');
    await advance(975); // 58.001 s left
    expect(s.frame()).toContain('expires in 0:58');
    // A ticker running every 1000 ms from its start at x.999 would still show 0:58 here, for 997 ms more.
    await advance(3); // 57.998 s left
    expect(s.frame()).toContain('expires in 0:57');
    await advance(997); // 57.001 s left
    expect(s.frame()).toContain('expires in 0:57');
    await advance(3);
    expect(s.frame()).toContain('expires in 0:56');
  });

  it('"retrying in N s" floors like the expiry: 7.999 s to go reads 7, not 8, and counts down on the same tick', async () => {
    now = EXPIRES - 600_001;
    const retrying: PollStatus = {
      ...idle,
      phase: 'retrying',
      nextAt: now + 7_999,
      failures: 1,
      error: 'Offline: The service is unreachable',
    };
    const s = await header(retrying);
    expect(s.frame()).toContain('Offline, retrying in 7 s: The service is unreachable');
    expect(s.frame()).toContain('expires in 10 min');
    await advance(25);
    expect(s.frame()).toContain('Offline, retrying in 7 s');
    expect(s.frame()).toContain('expires in 9:59');
    await advance(1000);
    expect(s.frame()).toContain('Offline, retrying in 6 s');
  });

  it('far from the expiry it says whole minutes, turns on the minutes of the expiry and draws nothing in between', async () => {
    now = EXPIRES - 660_001; // 11:00.001 left
    const s = await header(idle);
    expect(s.frame()).toContain('expires in 11 min');
    await advance(25); // 10:59.976 left
    expect(s.frame()).toContain('expires in 10 min');
    const frames = s.frames.length;
    await advance(59_975); // 10:00.001 left: a minute of no change, so no frame
    expect(s.frame()).toContain('expires in 10 min');
    expect(s.frames.length).toBe(frames);
    await advance(1000); // 9:59.001 left: to the second from here
    expect(s.frame()).toContain('expires in 9:59');
    // The ticker takes its new period in an effect, which React runs on a later turn.
    await flush();
    await advance(500); // 9:58.501 left
    expect(s.frame()).toContain('expires in 9:58');
  });

  it('an hour or more says hours and minutes', async () => {
    now = EXPIRES - (5 * 3600 + 29 * 60 + 59) * 1000;
    const s = await header(idle);
    expect(s.frame()).toContain('expires in 5 h 29 min');
  });
});
