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

/** What a test sees of the app: when each check started and ended, the last listing's length, the stream's chunks. */
interface Seen {
  checks: { start: number; end: number }[];
  listed: number;
  chunks: number;
}

/**
 * The app with push and a poll interval of ten minutes, its real client's checks and event stream
 * watched; `holdFirst`: the first check's answer, already taken, is handed over only once it settles.
 */
async function startWatched(holdFirst?: Promise<void>): Promise<Seen> {
  const seen: Seen = { checks: [], listed: 0, chunks: 0 };
  h = await startApp({
    push: true,
    pollIntervalMs: 600_000,
    wrapApi: (api) => ({
      ...api,
      checkMail: async (token) => {
        const check = { start: performance.now(), end: Number.POSITIVE_INFINITY };
        seen.checks.push(check);
        const first = seen.checks.length === 1;
        const answer = await api.checkMail(token).finally(() => {
          check.end = performance.now();
        });
        if (first && holdFirst) await holdFirst;
        seen.listed = answer.length;
        return answer;
      },
      openEvents: async (token) => {
        const stream = await api.openEvents!(token);
        if (!stream) return stream;
        const counted = async function* () {
          for await (const chunk of stream.chunks) {
            seen.chunks += 1;
            yield chunk;
          }
        };
        return { ...stream, chunks: counted() };
      },
    }),
  });
  return seen;
}

describe('push from a remote service', () => {
  it('shows each new message without a poll, one check per message', async () => {
    const seen = await startWatched();
    const address = await pickFirstDomain(h!);
    await h!.screen.waitFor('No mail yet');
    // Open, the stream asks for one check (mail may have come before it): two in all, then none.
    await waitFor(() => h!.svc.logs.some((l) => / \/events 200 /.test(l)), { message: 'the event stream to open' });
    await h!.screen.waitFor(/ · instant/);
    await waitFor(() => seen.checks.length === 2, { message: 'the check the open stream asked for' });
    const latencies: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const subject = `Pushed message number ${i}`;
      const info = await sendMail(h!.svc, { to: address, subject, text: 'x' });
      const acknowledged = performance.now();
      expect(info.response).toMatch(/^250 /);
      // Far less than the poll interval: only the push can have brought it.
      await h!.screen.waitFor(subject, 5000);
      latencies.push(Math.round(performance.now() - acknowledged));
      expect(seen.checks.length).toBe(2 + i);
    }
    console.log(
      `push to the app (in-process render): ms from the SMTP 250 to the row on screen: ${latencies.join(', ')}`,
    );
  });

  it('checks a burst of pushed mail at most once every PUSH_FOLLOW_UP_MS, and shows all of it', async () => {
    const seen = await startWatched();
    const address = await pickFirstDomain(h!);
    await h!.screen.waitFor(/ · instant/);
    await waitFor(() => seen.checks.length === 2, { message: 'the check the open stream asked for' });
    const burst = 30;
    const before = seen.checks.length;
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
    await waitFor(() => seen.listed === burst, { message: `a listing of all ${burst} messages`, timeoutMs: 10_000 });
    const elapsed = performance.now() - started;
    const made = seen.checks.slice(before);
    expect(made.length).toBeGreaterThanOrEqual(1);
    // Each check of the burst after its first started PUSH_FOLLOW_UP_MS or more after the one before
    // ended (a timer may fire a millisecond early on this clock). Before, one followed another at once:
    // 10 checks for this burst.
    const gaps = made.slice(1).map((span, i) => Math.round(span.start - made[i]!.end));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(PUSH_FOLLOW_UP_MS - 5);
    await h!.screen.waitFor(/Burst \d+/);
    console.log(
      `a burst of ${burst} pushed messages: ${made.length} checks in ${Math.round(elapsed)} ms, gaps ${gaps.join(', ')} ms`,
    );
  });

  it('mail pushed during the very first check is checked after it, not left for the poll interval', async () => {
    // The first check is held, its listing already taken, until the stream has brought news of a
    // message sent meanwhile: that check cannot show it, so one more must follow.
    let release: () => void = () => undefined;
    const seen = await startWatched(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    const address = await pickFirstDomain(h!);
    await waitFor(() => seen.checks.length === 1 && seen.chunks > 0, {
      message: 'the first check held and the stream open',
    });
    const before = seen.chunks;
    expect((await sendMail(h!.svc, { to: address, subject: 'Pushed while checking', text: 'x' })).response).toMatch(
      /^250 /,
    );
    await waitFor(() => seen.chunks > before, { message: 'news of the message on the stream' });
    release();
    await h!.screen.waitFor('Pushed while checking', 5000);
    expect(seen.checks.length).toBeGreaterThanOrEqual(2);
  });
});
