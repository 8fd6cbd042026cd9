/**
 * A big HTML message shows its beginning while the rest is still being converted: the first screen is
 * there, with the lines converted so far counted, and the whole follows in place (the reader's place kept
 * if they moved meanwhile), ending in its list of links. Real service, real SMTP, the real App.
 */
import { describe, expect, it } from 'vitest';
import { PARTIAL_NOTE } from '../../../src/content/html-text';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const POSITION = /lines (\d+)-(\d+) of (\d+)/;
const total = (frame: string) => Number(POSITION.exec(frame)?.[3] ?? 0);

/** ~1.5 MB of table-laid newsletter HTML, every row with a link; it starts with "Top story". */
function newsletter(): string {
  const rows = Array.from(
    { length: 6000 },
    (_, i) =>
      `<tr><td><p>Item ${i}: <a href="https://shop.example/item/${i}">a very good offer on something</a> ${'and more words '.repeat(8)}</p></td></tr>`,
  );
  return `<html><body><h1>Top story</h1><table>${rows.join('')}</table><p>The very end.</p></body></html>`;
}

describe('a big message', () => {
  it('shows its beginning first, then the whole in place', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Big newsletter', html: newsletter() });
    await h.screen.press('r');
    await h.screen.waitFor('Big newsletter');
    const before = h.screen.frames.length;
    await h.screen.press(KEY.ENTER);
    const first = await h.screen.waitFor((f) => f.includes('Top story') && POSITION.test(f), 20_000);
    // Keys work while the rest is converted: a line down.
    await h.screen.press('j');
    const whole = await h.screen.waitFor(
      (f) => total(f) > total(first) && !f.includes('Top story') && POSITION.exec(f)?.[1] === '2',
      20_000,
    );
    // The first screen counted only what was converted by then; the whole is far longer.
    expect(total(first)).toBeLessThan(total(whole) / 4);
    await h.screen.press('G');
    await h.screen.waitFor((f) => f.includes('[6000] https://shop.example/item/5999'), 20_000);
    // The note that the rest was coming is gone from the whole. The viewer drew two bodies, the partial
    // and then the whole, and never went back: no other length, no partial after the whole.
    expect(h.screen.frame()).not.toContain(PARTIAL_NOTE);
    const totals = h.screen.frames
      .slice(before)
      .map(total)
      .filter((n) => n > 0);
    expect(new Set(totals)).toEqual(new Set([total(first), total(whole)]));
    expect(totals.slice(totals.indexOf(total(whole)))).not.toContain(total(first));
  });
});
