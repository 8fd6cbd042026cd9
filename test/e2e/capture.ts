/**
 * Text captures of the inbox and the viewer for README.md, taken from the built app in a real
 * pseudo-terminal by the same harness as the e2e tests, so the README shows what the program draws.
 * Used by scripts/capture-screens.ts (writes README.md) and test/e2e/readme-capture.test.ts (checks it).
 */
import { fileURLToPath } from 'node:url';
import { sendMail } from '../harness/service';
import { addressOnScreen, isInbox, isPicker, isViewer, selectedRow, startE2E } from './flow';
import { KEYS, type PtyApp } from './pty-harness';

export const README = fileURLToPath(new URL('../../README.md', import.meta.url));
export const CAPTURE_NAMES = ['inbox', 'viewer'] as const;
export type CaptureName = (typeof CAPTURE_NAMES)[number];
export type Captures = Record<CaptureName, string>;

/** A fixed name, so the address in the README does not change with every capture. */
const NAME = 'jane.doe';

// The mail in the capture: what a sign-up inbox looks like. Sent oldest first.
const MAILS = [
  {
    from: 'Example News <news@example.org>',
    subject: 'Welcome to Example News',
    text: 'Thanks for subscribing. Your first issue arrives on Monday.',
  },
  {
    from: 'Acme Accounts <accounts@acme.example>',
    subject: 'Your Acme verification code',
    text: 'Your verification code is 482913. It expires in 10 minutes.',
  },
  {
    from: 'Shop <hello@shop.example>',
    subject: 'Confirm your email address',
    text: 'Confirm your address: https://shop.example/confirm?t=4f2a',
    html:
      '<h2>Almost there</h2><p>Hi Jane, please confirm that this is your address so we can send your order ' +
      'updates here.</p><p><a href="https://shop.example/confirm?t=4f2a">Confirm my address</a></p>' +
      '<p>Not you? <a href="https://shop.example/help">Tell us</a> and we will remove it.</p>',
  },
];
const OPEN = 'Confirm your email address';

/** The screen rows, trailing spaces trimmed, trailing empty rows dropped. */
function screenCapture(app: PtyApp): string {
  const rows = app.screen().map((row) => row.trimEnd());
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  return rows.join('\n');
}

/** A poll that is not in the middle of a check, so the header reads "last checked ...". */
const settledHeader = (s: string) => /^last checked /m.test(s);

/** Runs the capture flow (serve child, the app at 80x24) and returns the two screens as text. */
export async function captureScreens(): Promise<Captures> {
  const e2e = await startE2E({ cols: 80, rows: 24, args: ['--no-bell'] });
  try {
    const { app, serve } = e2e;
    const picker = await app.waitForScreen(isPicker);
    // The custom-name choice of the first domain, picked by its line number (the 1-9 keys).
    const choices = picker.split('\n').filter((row) => /^\W*(?:\d )?(Random address|Custom name|External alias)/.test(row));
    const line = choices.findIndex((row) => row.includes('Custom name on'));
    if (line < 0 || line > 8) throw new Error(`no custom-name choice among the first nine:\n${picker}`);
    await app.press(String(line + 1), /Custom name on \S+ \(Enter/);
    await app.press(NAME, `✓ ${NAME}@`);
    await app.press(KEYS.ENTER, (s) => isInbox(s) && s.includes(`${NAME}@`));
    const address = addressOnScreen(app);

    for (const [i, mail] of MAILS.entries()) {
      await sendMail(serve, { ...mail, to: address });
      // `r` checks at once rather than waiting for the 5 s poll; each arrival is its own "1 new message".
      await app.press('r', (s) => isInbox(s) && new RegExp(`^${i + 1} messages?\\b`, 'm').test(s) && s.includes(mail.subject));
    }
    await app.press('g', (s) => isInbox(s) && selectedRow(app).includes(MAILS[MAILS.length - 1]!.subject));
    await app.waitForScreen((s) => isInbox(s) && settledHeader(s) && /1 new message/.test(s));
    const inbox = screenCapture(app);

    // The HTML one: the newest, so at the top and selected.
    if (!selectedRow(app).includes(OPEN)) throw new Error(`"${OPEN}" is not selected:\n${app.screenText()}`);
    await app.press(KEYS.ENTER, (s) => isViewer(s) && settledHeader(s) && s.includes('Almost there') && s.includes('[2]'));
    const viewer = screenCapture(app);

    await app.press('q', isInbox);
    await app.press('q');
    const code = await app.exited();
    if (code !== 0) throw new Error(`the app exited with ${code}`);
    return { inbox, viewer };
  } finally {
    await e2e.close();
  }
}

const markers = (name: CaptureName) => [`<!-- capture:${name} -->`, `<!-- /capture:${name} -->`] as const;

/** The capture between the markers of `name` in `readme` (fence removed), or undefined without markers. */
export function readCapture(readme: string, name: CaptureName): string | undefined {
  const [open, close] = markers(name);
  const start = readme.indexOf(open);
  const end = readme.indexOf(close);
  if (start < 0 || end < start) return undefined;
  const inner = readme.slice(start + open.length, end).trim();
  return inner.replace(/^```text\n/, '').replace(/\n```$/, '');
}

/** `readme` with the text between each pair of markers replaced by the capture (in a text fence). */
export function writeCaptures(readme: string, captures: Captures): string {
  let out = readme;
  for (const name of CAPTURE_NAMES) {
    const [open, close] = markers(name);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no ${open} ... ${close} markers`);
    out = `${out.slice(0, start + open.length)}\n\`\`\`text\n${captures[name]}\n\`\`\`\n${out.slice(end)}`;
  }
  return out;
}

/**
 * The capture with what changes from run to run made neutral: clock times, dates and the countdown.
 * Everything else (layout, words, widths) must match.
 */
export function maskVolatile(capture: string): string {
  return capture.replace(/\d{4}-\d\d-\d\d|\d{1,2}:\d\d(?::\d\d)?/g, (m) => m.replace(/\d/g, '#'));
}
