/**
 * The header shows the address whole at any width (a 64-character custom name included): over SSH
 * without a working clipboard, reading it off the screen is the only way to use it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PollStatus } from '../../../src/client/pacing/poller';
import { headerHeight, SessionHeader } from '../../../src/tui/inbox/session-header';
import { renderAt, type Screen } from '../ui';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const clock = () => NOW;
const idle: PollStatus = {
  phase: 'waiting',
  lastSuccessAt: NOW,
  nextAt: null,
  failures: 0,
  error: null,
  rateLimited: false,
  stopReason: null,
};
const local = { smtpHost: '127.0.0.1', smtpPort: 2525 };
const flush = () => new Promise((resolve) => setImmediate(resolve));

let screen: Screen | undefined;
afterEach(() => {
  screen?.unmount();
  screen = undefined;
});

async function draw(email: string, columns: number, withLocal: boolean): Promise<string[]> {
  const session = { email, token: 'never-shown', expiresAt: new Date(NOW + 30 * 60_000) };
  const props = { session, poll: idle, intervalMs: 5000, clock, columns, local: withLocal ? local : undefined };
  screen = renderAt(<SessionHeader {...props} />, columns);
  await flush();
  const lines = screen.frame().split('\n');
  expect(lines.length).toBe(headerHeight(email, columns, props.local));
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
  return lines;
}

describe('session header', () => {
  it('a short address and its countdown share the first line', async () => {
    const lines = await draw('quiet-otter-4821@tempmail.test', 100, true);
    expect(lines[0]).toMatch(/^quiet-otter-4821@tempmail\.test +expires in 30 min$/);
    expect(lines[0]!.length).toBe(100); // the countdown is right-aligned
    expect(lines[2]).toBe('Local service: send mail to quiet-otter-4821@tempmail.test via SMTP 127.0.0.1:2525');
  });

  it('a long address gets a line of its own, the countdown the next', async () => {
    const email = `${'a'.repeat(64)}@tempmail.test`;
    const lines = await draw(email, 80, true);
    expect(lines[0]).toBe(email);
    expect(lines[1]).toBe('expires in 30 min');
    expect(lines.slice(3)).toEqual(['Local service: send mail to the address above via SMTP 127.0.0.1:2525']);
  });

  it('the local-mode banner takes one row at 80 and at 40 columns', async () => {
    // At 80 columns the whole sentence (82 columns here) used to take a second row from the list.
    const at80 = await draw('quiet-otter-4821@tempmail.test', 80, true);
    expect(at80).toHaveLength(3);
    expect(at80[2]).toBe('Local service: mail to quiet-otter-4821@tempmail.test via SMTP 127.0.0.1:2525');
    const at40 = await draw('quiet-otter-4821@tempmail.test', 40, true);
    expect(at40).toHaveLength(4); // the address, the countdown, the poll state, the banner
    expect(at40[3]).toBe('Local service: SMTP 127.0.0.1:2525');
  });

  it('an address wider than the terminal is split over lines, never cut', async () => {
    const email = `${'b'.repeat(64)}@inbox.test`;
    const lines = await draw(email, 40, false);
    expect(lines.slice(0, 2).join('')).toBe(email);
    expect(lines[2]).toBe('expires in 30 min');
  });
});
