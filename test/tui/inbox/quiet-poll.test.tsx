/**
 * A check that finds nothing new costs nothing on screen: with the app's clock standing still (so the
 * header's "last checked" time stays the same), checks that bring back the same listing draw no frame
 * at all; the next one that brings new mail draws it. Against the real service, through the real client
 * (counted by a wrapper around it).
 */
import { describe, expect, it } from 'vitest';
import { IDLE_POLL_STATUS, type PollStatus } from '../../../src/client/pacing/poller';
import { CHECKING_SHOWN_AFTER_MS, sameShownStatus } from '../../../src/tui/inbox/use-inbox';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';

let h: AppHarness | undefined;
closeAppsAfterEach();

describe('an unchanged poll', () => {
  it('draws no frame; new mail does', async () => {
    const now = Date.now();
    let checks = 0;
    let slowest = 0;
    h = await startApp({
      pollIntervalMs: 1000,
      props: { clock: () => now },
      wrapApi: (api) => ({
        ...api,
        checkMail: async (token) => {
          const started = performance.now();
          const listed = await api.checkMail(token);
          slowest = Math.max(slowest, performance.now() - started);
          checks += 1;
          return listed;
        },
      }),
    });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Already here', text: 'one' });
    await h.screen.waitFor('Already here', 8000);
    // The arrival's own frames (the list, "1 new message") are drawn; then three checks of the same list.
    const settled = checks + 1;
    await waitFor(() => checks >= settled, { timeoutMs: 8000, message: 'a check after the list showed' });
    // A check that takes longer than CHECKING_SHOWN_AFTER_MS rightly says "checking…" (a slow service):
    // on a loaded machine one may, so the claim is held to windows of three quick checks (well under it).
    let frames = h.screen.frames.length;
    for (let window = 0; ; window++) {
      frames = h.screen.frames.length;
      slowest = 0;
      const from = checks;
      await waitFor(() => checks >= from + 3, { timeoutMs: 10_000, message: 'three more checks' });
      if (slowest < CHECKING_SHOWN_AFTER_MS / 2) break;
      expect(window, `no three checks in a row answered within ${CHECKING_SHOWN_AFTER_MS / 2} ms`).toBeLessThan(10);
    }
    expect(h.screen.frames.length).toBe(frames);
    expect(h.screen.frame()).toContain('Already here');

    await sendMail(h.svc, { to: address, subject: 'Something new', text: 'two' });
    await h.screen.waitFor('Something new', 8000);
    expect(h.screen.frames.length).toBeGreaterThan(frames);
  });
});

describe('the poll status the header is told of', () => {
  const at = Date.parse('2026-03-01T12:00:05.000Z');
  const waiting = (lastSuccessAt: number, patch: Partial<PollStatus> = {}): PollStatus => ({
    ...IDLE_POLL_STATUS,
    phase: 'waiting',
    lastSuccessAt,
    nextAt: lastSuccessAt + 5000,
    ...patch,
  });

  it('is the same for checks within one second (the header shows the time to the second)', () => {
    expect(sameShownStatus(waiting(at), waiting(at + 6))).toBe(true);
    expect(sameShownStatus(waiting(at), waiting(at + 999))).toBe(true);
  });

  it('changes with the shown second, the phase, a failure, its reason and a retry countdown', () => {
    expect(sameShownStatus(waiting(at + 999), waiting(at + 1000))).toBe(false);
    expect(sameShownStatus(waiting(at), { ...IDLE_POLL_STATUS, phase: 'idle' })).toBe(false);
    expect(sameShownStatus(waiting(at), waiting(at, { phase: 'checking', nextAt: null }))).toBe(false);
    const retrying = waiting(at, { phase: 'retrying', failures: 1, error: 'Offline: no answer' });
    expect(sameShownStatus(waiting(at), retrying)).toBe(false);
    expect(sameShownStatus(retrying, { ...retrying, error: 'Offline: refused' })).toBe(false);
    expect(sameShownStatus(retrying, { ...retrying, nextAt: retrying.nextAt! + 4000 })).toBe(false);
    expect(sameShownStatus(retrying, { ...retrying, rateLimited: true })).toBe(false);
    expect(
      sameShownStatus(
        waiting(at, { phase: 'stopped', stopReason: 'left' }),
        waiting(at, { phase: 'stopped', stopReason: 'expired' }),
      ),
    ).toBe(false);
    expect(sameShownStatus({ ...IDLE_POLL_STATUS }, waiting(at))).toBe(false);
  });
});
