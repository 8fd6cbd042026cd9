/**
 * Job control's order of things, around a recording stand-in for Ink's suspendTerminal (what Ink does
 * with the terminal is Ink's, and the real stop is tested in a pseudo-terminal: test/e2e/suspend.test.ts):
 * the stop happens inside the suspension, a stop nothing could resume is not tried, and a SIGCONT after
 * a stop from outside takes the screen again, while the SIGCONT of our own stop does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createJobControl, NO_JOB_CONTROL, type SuspendTerminal } from '../../../src/tui/shell/suspend';

function recorder() {
  const events: string[] = [];
  const suspendTerminal: SuspendTerminal = async (callback) => {
    events.push('terminal given back');
    try {
      await callback();
    } finally {
      events.push('terminal taken again, drawn anew');
    }
  };
  return { events, suspendTerminal };
}

let unwatch: (() => void) | undefined;
afterEach(() => unwatch?.());

describe('job control', () => {
  it('gives the terminal back, stops, then takes it again; the SIGCONT of that stop draws nothing twice', async () => {
    const t = recorder();
    const jobs = createJobControl({ resumable: () => true, stop: () => t.events.push('stopped') });
    unwatch = jobs.watch(t.suspendTerminal);
    expect(await jobs.suspend(t.suspendTerminal)).toBeNull();
    expect(t.events).toEqual(['terminal given back', 'stopped', 'terminal taken again, drawn anew']);
    process.emit('SIGCONT', 'SIGCONT');
    expect(t.events).toHaveLength(3);
  });

  it('a SIGCONT after a stop from outside (SIGSTOP, then kill -CONT) takes the screen again', async () => {
    const t = recorder();
    let now = 1_000_000;
    const jobs = createJobControl({ resumable: () => true, stop: () => t.events.push('stopped'), now: () => now });
    unwatch = jobs.watch(t.suspendTerminal);
    await jobs.suspend(t.suspendTerminal);
    now += 60_000;
    t.events.length = 0;
    process.emit('SIGCONT', 'SIGCONT');
    await Promise.resolve();
    expect(t.events).toEqual(['terminal given back', 'terminal taken again, drawn anew']);
    unwatch();
    unwatch = undefined;
    process.emit('SIGCONT', 'SIGCONT');
    await Promise.resolve();
    expect(t.events).toHaveLength(2);
  });

  it('does not stop when nothing could resume it, and says so', async () => {
    const t = recorder();
    const jobs = createJobControl({ resumable: () => false, stop: () => t.events.push('stopped') });
    expect(await jobs.suspend(t.suspendTerminal)).toBe(NO_JOB_CONTROL);
    expect(t.events).toEqual([]);
  });
});
