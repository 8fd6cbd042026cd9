/**
 * The status line: a transient line (copied, deleted, new mail) fades a few seconds after it was said,
 * by the app's clock (injected here, moved by the test, never slept on); an error stays until the state
 * it describes goes (another message opened, the list left) or another line replaces it.
 */
import { describe, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { FADE_MS } from '../../../src/tui/session/session-status';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

describe('status line', () => {
  it('a transient line fades after FADE_MS of the app clock; a new one starts its own time', async () => {
    let now = Date.now();
    h = await startApp({ props: { clock: () => now } });
    await pickFirstDomain(h);
    await h.screen.press('c');
    await h.screen.waitFor('Copied address');
    now += FADE_MS - 1000;
    // A redraw with the clock moved, not yet far enough: still there.
    await h.screen.press('?');
    await h.screen.waitFor('Keys: inbox');
    await h.screen.press('q');
    await h.screen.waitFor((f) => f.includes('Enter open') && f.includes('Copied address'));
    now += 1001;
    await h.screen.waitForGone('Copied address');
    await h.screen.press('c');
    await h.screen.waitFor('Copied address');
  });

  it('an error stays however long, until the state it is about goes', async () => {
    let now = Date.now();
    h = await startApp({
      props: {
        clock: () => now,
        copy: async () => {
          throw new Error('no clipboard at all');
        },
      },
    });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Something', text: 'x' });
    await h.screen.press('r');
    await h.screen.waitFor('Something');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Subject:  Something');
    await h.screen.press('q', 'c');
    await h.screen.waitFor(/address: not copied: .*no clipboard at all/);
    now += 10 * FADE_MS;
    // The list redraws (the selection moves): the error is still said.
    await h.screen.press('?');
    await h.screen.waitFor('Keys: inbox');
    await h.screen.press('q');
    await h.screen.waitFor((f) => f.includes('Enter open') && /address: not copied/.test(f));
    // Another view: the error was about the list's copy, and goes.
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor((f) => f.includes('Subject:  Something') && !/not copied/.test(f));
  });
});
