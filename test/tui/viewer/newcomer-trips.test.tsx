/**
 * What a newcomer tripped over in the viewer (issue 26), against the real service over real SMTP:
 * opening a message from the list shows the message even after R showed a source (J/K keep the view);
 * a search that found nothing stays set, so the first Esc clears it and only the second goes back; `c`
 * copies the code, or says why there is none.
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const subjectRow = (frame: string) => /^Subject: +(.*)$/m.exec(frame)?.[1]?.trim();
const inInbox = (frame: string) => /Enter open/.test(frame);

/** An address with `mails` sent in this order (the last on top), listed. */
async function inboxWith(app: AppHarness, mails: { subject: string; text: string }[]): Promise<string> {
  const address = await pickFirstDomain(app);
  for (const mail of mails) await sendMail(app.svc, { to: address, ...mail });
  await app.screen.press('r');
  await app.screen.waitFor(`${mails.length} message${mails.length === 1 ? '' : 's'} ·`);
  return address;
}

describe('opening a message from the list', () => {
  it('shows the message, not the source R showed before; J and K keep the source', async () => {
    h = await startApp();
    await inboxWith(h, [
      { subject: 'Older one', text: 'Words of the older one.' },
      { subject: 'Newer one', text: 'Words of the newer one.' },
    ]);
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Words of the newer one.');
    await h.screen.press('R');
    await h.screen.waitFor(/── source · lines/);
    // J keeps the view: the next message, as source.
    await h.screen.press('J');
    let frame = await h.screen.waitFor((f) => subjectRow(f) === 'Older one' && /── source · lines/.test(f));
    expect(frame).toMatch(/^MIME-Version: 1\.0$/m);
    // Back to the list, another message opened with Enter: the message itself.
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(inInbox);
    await h.screen.press('g', KEY.ENTER);
    frame = await h.screen.waitFor('Words of the newer one.');
    expect(frame).not.toMatch(/── source/);
    expect(frame).not.toContain('MIME-Version');
    expect(subjectRow(frame)).toBe('Newer one');
  });
});

describe('a search that finds nothing', () => {
  it('stays set: the first Esc clears it, the second goes back to the list', async () => {
    h = await startApp();
    await inboxWith(h, [{ subject: 'Searched', text: 'Nothing to find in here.' }]);
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Nothing to find in here.');
    await h.screen.press('/', ...'Nowhere', KEY.ENTER);
    let frame = await h.screen.waitFor('No match for "Nowhere" · Esc clears');
    // The footer is the one of a search set: Esc clears.
    expect(frame).toMatch(/^n\/N match {2}Esc clear/m);
    await h.screen.press('n');
    await h.screen.waitFor('No match for "Nowhere"');
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor(/^j\/k move {2}J\/K next/m);
    expect(subjectRow(frame)).toBe('Searched');
    expect(inInbox(frame)).toBe(false);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(inInbox);
  });
});

describe('c in the viewer', () => {
  it('copies the code when there is one, and says why not when there is none', async () => {
    h = await startApp();
    await inboxWith(h, [
      { subject: 'No code here', text: 'Just saying hello, nothing to verify.' },
      { subject: 'Your Acme verification code', text: 'Your verification code is 482913. It expires in 10 minutes.' },
    ]);
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Code:');
    await h.screen.press('c');
    await h.screen.waitFor('Copied code 482913');
    expect(h.copied).toEqual(['482913']);
    await h.screen.press('J');
    await h.screen.waitFor('Just saying hello');
    await h.screen.press('c');
    await h.screen.waitFor('No code found in this message');
    expect(h.copied).toEqual(['482913']);
  });
});
