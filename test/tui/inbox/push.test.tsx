/**
 * New mail from a remote service shows in the inbox without polling: the app against the real reference
 * service over real HTTP, with a poll interval of ten minutes, hears of each message through the
 * service's event stream (GET /events) and lists once per message. The time from the SMTP 250 to the
 * row on screen is printed for the record (bench and the operations docs carry the figures). A burst of
 * mail is checked at a pace (pushed-checks.ts), not once per message.
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { PUSH_FOLLOW_UP_MS } from '../../../src/tui/inbox/pushed-checks';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';

let h: AppHarness | undefined;
closeAppsAfterEach();

describe('push from a remote service', () => {
  it('shows each new message without a poll, one check per message', async () => {
    let checks = 0;
    h = await startApp({
      push: true,
      pollIntervalMs: 600_000,
      wrapApi: (api) => ({
        ...api,
        checkMail: async (token) => {
          checks += 1;
          return api.checkMail(token);
        },
      }),
    });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    // Open, the stream asks for one check (mail may have come before it): two in all, then none.
    await waitFor(() => h!.svc.logs.some((l) => / \/events 200 /.test(l)), { message: 'the event stream to open' });
    await h.screen.waitFor(/ · instant/);
    await waitFor(() => checks === 2, { message: 'the check the open stream asked for' });
    const latencies: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const subject = `Pushed message number ${i}`;
      const info = await sendMail(h.svc, { to: address, subject, text: 'x' });
      const acknowledged = performance.now();
      expect(info.response).toMatch(/^250 /);
      // Far less than the poll interval: only the push can have brought it.
      await h.screen.waitFor(subject, 5000);
      latencies.push(Math.round(performance.now() - acknowledged));
      expect(checks).toBe(2 + i);
    }
    console.log(
      `push to the app (in-process render): ms from the SMTP 250 to the row on screen: ${latencies.join(', ')}`,
    );
  });

  it('checks a burst of pushed mail at most once every PUSH_FOLLOW_UP_MS, and shows all of it', async () => {
    // When each check started and ended (ms, performance.now()).
    const spans: { start: number; end: number }[] = [];
    let listed = 0;
    h = await startApp({
      push: true,
      pollIntervalMs: 600_000,
      wrapApi: (api) => ({
        ...api,
        checkMail: async (token) => {
          const span = { start: performance.now(), end: Number.POSITIVE_INFINITY };
          spans.push(span);
          const answer = await api.checkMail(token).finally(() => {
            span.end = performance.now();
          });
          listed = answer.length;
          return answer;
        },
      }),
    });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor(/ · instant/);
    await waitFor(() => spans.length === 2, { message: 'the check the open stream asked for' });
    const burst = 30;
    const before = spans.length;
    const started = performance.now();
    // Ten at a time: the service takes 20 connections from one address at once.
    for (let wave = 0; wave < burst / 10; wave++) {
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          sendMail(h!.svc, { to: address, subject: `Burst ${wave * 10 + i}`, text: 'x' }),
        ),
      );
      for (const info of sent) expect(info.response).toMatch(/^250 /);
    }
    await waitFor(() => listed === burst, { message: `a listing of all ${burst} messages`, timeoutMs: 10_000 });
    const elapsed = performance.now() - started;
    const made = spans.slice(before);
    expect(made.length).toBeGreaterThanOrEqual(1);
    // Each check of the burst after its first started PUSH_FOLLOW_UP_MS or more after the one before
    // ended (a timer may fire a millisecond early on this clock). Before, one followed another at once:
    // 10 checks for this burst.
    const gaps = made.slice(1).map((span, i) => Math.round(span.start - made[i]!.end));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(PUSH_FOLLOW_UP_MS - 5);
    await h.screen.waitFor(/Burst \d+/);
    console.log(
      `a burst of ${burst} pushed messages: ${made.length} checks in ${Math.round(elapsed)} ms, gaps ${gaps.join(', ')} ms`,
    );
  });
});
