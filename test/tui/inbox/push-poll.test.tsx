/**
 * While the service's push is live the inbox checks once a minute, not at its own interval: the push
 * brings news of mail at once (test/tui/inbox/push.test.tsx), and each check was a request and a frame
 * of the idle app. When the push goes down, the interval is the user's again. Real reference service
 * on loopback, real client; the checks are counted against a second app on the same service that has no
 * push, never against a clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/client/api-error';
import type { HttpStream } from '../../../src/client/http/http-client';
import type { TempMailApi } from '../../../src/client/client-types';
import { startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { pickFirstDomain, startApp, type AppHarness } from '../harness';

const apps: AppHarness[] = [];
let svc: TestService | undefined;
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await svc?.close();
  svc = undefined;
});

/** A wrapApi that counts check-mail calls and keeps the event streams it opened. */
function counting(counter: { checks: number; streams: HttpStream[]; refuseStreams?: boolean }) {
  return (api: TempMailApi): TempMailApi => ({
    ...api,
    checkMail: async (token) => {
      counter.checks += 1;
      return api.checkMail(token);
    },
    openEvents: async (token) => {
      if (counter.refuseStreams) throw new ApiError('network', 'Connection refused (test)');
      const stream = await api.openEvents!(token);
      if (stream) counter.streams.push(stream);
      return stream;
    },
  });
}

describe('checks while the push is live', () => {
  it('checks once a minute while the push is live, where an app without push checks at its interval', async () => {
    svc = await startTestService();
    const pushed = { checks: 0, streams: [] as HttpStream[] };
    const polled = { checks: 0, streams: [] as HttpStream[] };
    const withPush = await startApp({ svc, push: true, pollIntervalMs: 200, wrapApi: counting(pushed) });
    apps.push(withPush);
    await pickFirstDomain(withPush);
    await withPush.screen.waitFor(/ · instant/);
    // The header says how often it checks now.
    await withPush.screen.waitFor(/every 60 s/);
    // The check the open stream asked for, and one at the interval scheduled before the push was live.
    await waitFor(() => pushed.checks >= 2, { message: 'the checks around the opening of the stream' });
    const withoutPush = await startApp({ svc, pollIntervalMs: 200, wrapApi: counting(polled) });
    apps.push(withoutPush);
    await pickFirstDomain(withoutPush);
    const [pushedFrom, polledFrom] = [pushed.checks, polled.checks];
    await waitFor(() => polled.checks - polledFrom >= 15, { timeoutMs: 20_000, message: '15 checks without push' });
    expect(pushed.checks - pushedFrom).toBeLessThanOrEqual(1);
  });

  it('checks at its own interval again once the push is down', async () => {
    svc = await startTestService();
    const pushed = { checks: 0, streams: [] as HttpStream[], refuseStreams: false };
    const app = await startApp({ svc, push: true, pollIntervalMs: 1000, wrapApi: counting(pushed) });
    apps.push(app);
    await pickFirstDomain(app);
    await app.screen.waitFor(/every 60 s/);
    await waitFor(() => pushed.checks >= 2, { message: 'the checks around the opening of the stream' });
    // The stream ends, and the service is not reachable for a new one: the push stays down.
    pushed.refuseStreams = true;
    for (const stream of pushed.streams) stream.close();
    await app.screen.waitFor(/every 1 s/);
    const from = pushed.checks;
    await waitFor(() => pushed.checks - from >= 3, { timeoutMs: 15_000, message: 'three checks at 1 s' });
  });
});
