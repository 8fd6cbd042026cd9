/**
 * The viewer's `?` at 80x24 (issue 37.10): its lines do not fit, so it says how many are below and
 * scrolls to the last of them with the keymap's keys.
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

describe("the viewer's help at 80x24", () => {
  it('shows where the rest is and scrolls to its last line', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Help me', text: 'Your code is 482913.' });
    await h.screen.press('r');
    await h.screen.waitFor('Help me');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/^Code: +482913/m);
    await h.screen.press('?');
    let frame = await h.screen.waitFor('Keys: reading a message');
    expect(frame).toMatch(/↓ \d+ more: j\/k scroll/);
    await h.screen.press('G');
    frame = await h.screen.waitFor((f) => !/↓ \d+ more/.test(f) && f.includes('Keys: reading a message'));
    expect(frame).toContain('draw the whole screen anew');
  });
});
