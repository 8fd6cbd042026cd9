import { describe, expect, it } from 'vitest';
import type { TempMailApi } from '../../../src/client/client-types';
import { helpRows } from '../../../src/tui/keymap/keymap';
import { sendMail } from '../../harness/service';
import { startApp, pickFirstDomain, type AppHarness, closeAppsAfterEach } from '../harness';
import { collapsed, readWholeHelp } from '../widgets/help-pages';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const HTML = `<html><head><style>p{color:red}</style><script>alert(1)</script></head><body>
<h1>Welcome aboard</h1>
<p>Thanks for signing up. Please confirm your account within the hour.</p>
<p><a href="https://example.com/confirm?token=abc123">Confirm my account</a> or read the
<a href="https://example.com/help">help pages</a>. <a href="javascript:alert(1)">Evil</a></p>
</body></html>`;

/** Counts readMail calls while still calling the real client. */
function counting(reads: number[]) {
  return (api: TempMailApi): TempMailApi => ({
    ...api,
    readMail: (token, id) => {
      reads.push(Number(id));
      return api.readMail(token, id);
    },
  });
}

async function withMessage(
  h: AppHarness,
  input: Parameters<typeof sendMail>[1] extends infer T ? Omit<T & object, 'to'> : never,
) {
  const address = await pickFirstDomain(h);
  await sendMail(h.svc, { ...input, to: address });
  await h.screen.press('r');
  await h.screen.waitFor((input as { subject: string }).subject);
  return address;
}

describe('viewer', () => {
  it('shows From, To, Subject, Date and the HTML body as text with numbered links', async () => {
    h = await startApp();
    const address = await withMessage(h, {
      from: 'Service Team <team@example.com>',
      subject: 'Confirm your account',
      text: 'Plain part that should not be shown when HTML exists.',
      html: HTML,
    });
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor('Please confirm your account');
    expect(frame).toContain('From:     Service Team <team@example.com>');
    expect(frame).toContain(`To:       ${address}`);
    expect(frame).toContain('Subject:  Confirm your account');
    expect(frame).toMatch(/Date: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d/);
    expect(frame).toMatch(/Confirm my account \[1\]/);
    expect(frame).toContain('[1] https://example.com/confirm?token=abc123');
    expect(frame).toContain('[2] https://example.com/help');
    expect(frame).toMatch(/lines 1-\d+ of \d+ · 2 links /);
    expect(frame).not.toContain('alert(1)');
    expect(frame).not.toContain('javascript:');
    expect(frame).not.toContain('should not be shown');
  });

  it('falls back to body_text when there is no HTML', async () => {
    h = await startApp();
    await withMessage(h, { subject: 'Plain only', text: 'Your code is 482913.\n\nSecond paragraph.' });
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor('Your code is 482913.');
    expect(frame).toContain('Second paragraph.');
  });

  it('scrolls by line, page, top and bottom; H toggles the headers', async () => {
    h = await startApp();
    const text = Array.from({ length: 100 }, (_, i) => `Line number ${i + 1}`).join('\n');
    await withMessage(h, { subject: 'Long one', text });
    await h.screen.press(KEY.ENTER);
    let frame = await h.screen.waitFor(/lines 1-\d+ of 100/);
    const page = Number(/lines 1-(\d+) of 100/.exec(frame)![1]);
    await h.screen.press('j', KEY.ARROW_DOWN);
    await h.screen.waitFor(`lines 3-${page + 2} of 100`);
    await h.screen.press('k');
    await h.screen.waitFor(`lines 2-${page + 1} of 100`);
    await h.screen.press(KEY.SPACE);
    await h.screen.waitFor(`lines ${page + 1}-`);
    await h.screen.press('b');
    await h.screen.waitFor('lines 2-');
    await h.screen.press('G');
    frame = await h.screen.waitFor(/lines \d+-100 of 100/);
    expect(frame).toContain('Line number 100');
    await h.screen.press('g');
    await h.screen.waitFor('lines 1-');
    expect(h.screen.frame()).toContain('From:');
    await h.screen.press('H');
    frame = await h.screen.waitForGone('From:');
    expect(frame).toContain('Subject:  Long one');
    // More room for the body without the headers.
    expect(Number(/lines 1-(\d+)/.exec(frame)![1])).toBeGreaterThan(page);
    await h.screen.press('H');
    await h.screen.waitFor('From:');
  });

  it('fetches a body once: opening the same message again uses the cache', async () => {
    const reads: number[] = [];
    h = await startApp({ wrapApi: counting(reads) });
    await withMessage(h, { subject: 'Cached', text: 'Cached body text' });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Cached body text');
    await h.screen.press(KEY.ESC);
    await h.screen.waitForGone('Cached body text');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Cached body text');
    await h.screen.press('q', KEY.ENTER);
    await h.screen.waitFor('Cached body text');
    expect(reads).toHaveLength(1);
  });

  it('a number key picks a link: shown whole at the top, y copies it, a wrong number says so', async () => {
    h = await startApp();
    await withMessage(h, { subject: 'Links', html: HTML });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Please confirm');
    await h.screen.press('2');
    let frame = await h.screen.waitFor('Link 2 picked: o opens it, y copies it.');
    expect(frame).toMatch(/^Link: +\[2\] https:\/\/example\.com\/help$/m);
    expect(h.copied).toEqual([]);
    await h.screen.press('y');
    frame = await h.screen.waitFor('Copied link 2 (test clipboard)');
    expect(h.copied).toEqual(['https://example.com/help']);
    await h.screen.press('7');
    await h.screen.waitFor('No link 7: this message has 2.');
  });

  it('d in the viewer asks, deletes and returns to the inbox', async () => {
    h = await startApp();
    await withMessage(h, { subject: 'Doomed', text: 'Doomed body' });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Doomed body');
    await h.screen.press('d');
    await h.screen.waitFor('Delete "Doomed"? y = yes');
    await h.screen.press('y');
    const frame = await h.screen.waitFor('Deleted "Doomed"');
    expect(frame).toContain('No mail yet');
  });

  it('? lists every viewer key from the keymap and closes without losing the place', async () => {
    h = await startApp();
    const text = Array.from({ length: 60 }, (_, i) => `Row ${i + 1}`).join('\n');
    await withMessage(h, { subject: 'Helpful', text });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('lines 1-');
    await h.screen.press('j', 'j', '?');
    // Read whole by scrolling (at 80x24 the wrapped descriptions take more lines than fit).
    const help = await readWholeHelp(h.screen, 'Keys: reading a message');
    for (const row of helpRows('viewer')) expect(help.text).toContain(collapsed(`${row.keys} ${row.description}`));
    await h.screen.press('q');
    await h.screen.waitFor('lines 3-');
  });
});

describe('a 2 MB HTML message', () => {
  // How long the keyboard waits while it renders is the bench's figure (html2mb_max_stall_ms), not a test's.
  it('shows a 2 MB HTML message to its last sentence, and its keys answer', async () => {
    h = await startApp();
    const paragraph =
      '<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, <a href="https://example.com/x">link</a>.</p>\n';
    const html = `<html><body>${paragraph.repeat(Math.ceil((2 * 1024 * 1024) / paragraph.length))}<p>The very last sentence.</p></body></html>`;
    await withMessage(h, { subject: 'Huge newsletter', html });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/lines 1-\d+ of \d+/, 20_000);
    await h.screen.press('G');
    await h.screen.waitFor('The very last sentence.');
    await h.screen.press('?');
    await h.screen.waitFor('Keys: reading a message');
  }, 60_000);
});

describe('bodies past the 256 KB synchronous cap', () => {
  // One line per paragraph, numbered, so the end can be found and nothing is mistaken for it.
  const lines = (n: number) =>
    Array.from({ length: n }, (_, i) => `Line ${i + 1} of a long plain-text report, nothing more.`).join('\n');

  /** Opens the message, goes to the end, and returns that frame: the last line must be there, no note. */
  async function bottom(app: AppHarness): Promise<string> {
    await app.screen.press(KEY.ENTER);
    await app.screen.waitFor(/lines 1-\d+ of \d+/, 20_000);
    await app.screen.press('G');
    const frame = await app.screen.waitFor('The very last line.', 10_000);
    expect(frame).not.toMatch(/truncated/);
    return frame;
  }

  it('a 600 KB plain-text body is shown whole (rendered in slices, like big HTML)', async () => {
    h = await startApp();
    await withMessage(h, { subject: 'Long plain report', text: `${lines(10_000)}\nThe very last line.\n` });
    const frame = await bottom(h);
    expect(frame).toMatch(/lines \d+-10001 of 10001/);
  }, 60_000);

  it('an HTML part that shows nothing, with a 600 KB text part: the whole text part is shown', async () => {
    h = await startApp();
    await withMessage(h, {
      subject: 'Image-only HTML',
      html: '<html><body><img src="cid:banner"></body></html>',
      text: `${lines(10_000)}\nThe very last line.\n`,
    });
    await bottom(h);
  }, 60_000);
});
