/**
 * A check that finds nothing new costs nothing on screen: with the app's clock standing still (so the
 * header's "last checked" time stays the same), checks that bring back the same listing draw no frame
 * at all; the next one that brings new mail draws it. Against the real service, through the real client
 * (counted by a wrapper around it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { pickFirstDomain, startApp, type AppHarness } from '../harness';

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('an unchanged poll', () => {
  it('draws no frame; new mail does', async () => {
    const now = Date.now();
    let checks = 0;
    h = await startApp({
      pollIntervalMs: 1000,
      props: { clock: () => now },
      wrapApi: (api) => ({
        ...api,
        checkMail: async (token) => {
          const listed = await api.checkMail(token);
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
    const frames = h.screen.frames.length;
    const from = checks;
    await waitFor(() => checks >= from + 3, { timeoutMs: 10_000, message: 'three more checks' });
    expect(h.screen.frames.length).toBe(frames);
    expect(h.screen.frame()).toContain('Already here');

    await sendMail(h.svc, { to: address, subject: 'Something new', text: 'two' });
    await h.screen.waitFor('Something new', 8000);
    expect(h.screen.frames.length).toBeGreaterThan(frames);
  });
});
