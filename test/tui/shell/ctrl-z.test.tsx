/**
 * Ctrl-Z reaches the suspender from every screen (the real stop is tested in the pseudo-terminal, see
 * test/e2e/suspend.test.ts): the picker, the inbox, the viewer, a text input (the text stays), and a
 * question, which Ctrl-Z does not answer. When nothing could resume the app, the status line says so.
 */
import { describe, expect, it } from 'vitest';
import { createJobControl } from '../../../src/tui/shell/suspend';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

const CTRL_Z = '\x1a';
let h: AppHarness | undefined;
closeAppsAfterEach();

describe('Ctrl-Z', () => {
  it('suspends from every screen, redraws after, and answers no question', async () => {
    const calls: string[] = [];
    // Ink's suspendTerminal runs the stop without a terminal handoff here (no TTY): the real one is in
    // test/e2e/suspend.test.ts.
    h = await startApp({
      props: { jobControl: createJobControl({ resumable: () => true, stop: () => calls.push('suspend') }) },
    });
    await h.screen.waitFor('Random address on');
    await h.screen.press(CTRL_Z);
    expect(calls).toEqual(['suspend']);
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Hello there', text: 'hi' });
    await h.screen.press('r');
    await h.screen.waitFor('Hello there');
    await h.screen.press(CTRL_Z);
    // A question stays asked: Ctrl-Z is not "any other key".
    await h.screen.press('d');
    await h.screen.waitFor('Delete "Hello there"?');
    await h.screen.press(CTRL_Z);
    // Drawn again (the redraw), still asking: had Ctrl-Z been "no", it would say Cancelled instead.
    await h.screen.waitFor((f) => f.includes('Delete "Hello there"?') && !f.includes('Cancelled'));
    await h.screen.press('n');
    await h.screen.waitFor('Cancelled');
    // The filter input keeps its text.
    await h.screen.press('/', 'H', 'e', CTRL_Z, 'l');
    await h.screen.waitFor(/^\/Hel/m);
    await h.screen.press(KEY.ESC, KEY.ENTER);
    await h.screen.waitFor('Subject:  Hello there');
    await h.screen.press(CTRL_Z, '/', 't', CTRL_Z);
    await h.screen.waitFor(/^\/t /m);
    expect(calls).toHaveLength(6);
  });

  it('says so when nothing could resume the app', async () => {
    h = await startApp({ props: { jobControl: createJobControl({ resumable: () => false }) } });
    await pickFirstDomain(h);
    await h.screen.press(CTRL_Z);
    await h.screen.waitFor('Not suspended: nothing here could resume it');
  });
});
