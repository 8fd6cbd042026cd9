/**
 * The screens the documentation shows, taken from the built program in a real pseudo-terminal by the
 * same harness as the e2e tests, in the mode the README starts a new user in: no service configured, so
 * the app runs its local service (the `Local service:` row), at 100x30. Used by
 * scripts/capture-screens.ts (writes docs/screens/*.svg and the text captures) and
 * test/e2e/doc-screens.test.ts (fails when they are stale).
 *
 * Every capture comes out the same: the name and the mail are fixed, the clock is (fixed-clock.mjs),
 * the zone is UTC, and the data lives in a fresh temp home. The one thing that depends on the machine,
 * the SMTP port (2525, or the next free one when something else holds it), is drawn as 2525.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readGrid, replaceText, type Grid } from '../../scripts/docs-gen/grid';
import { sendMail } from '../harness/service';
import { isInbox, isPicker, isViewer, neutralEnv, selectedRow } from './flow';
import { CLI, KEYS, spawnApp, type PtyApp } from './pty-harness';

export const SCREEN_NAMES = ['picker', 'inbox', 'viewer'] as const;
export type ScreenName = (typeof SCREEN_NAMES)[number];
export type Screens = Record<ScreenName, Grid>;

export const COLS = 100;
export const ROWS = 30;
/** The port the local service takes when it is free, as the docs name it. */
export const DOC_SMTP_PORT = 2525;

const FIXED_CLOCK = fileURLToPath(new URL('fixed-clock.mjs', import.meta.url));
/** A fixed name, so the address in the pictures does not change with every capture. */
const NAME = 'jane.doe';
/** The messages' own Date header, as a sender would write it (the screens show when they arrived). */
const SENT = 'Thu, 14 May 2026 09:40:12 +0000';

// What a sign-up inbox looks like. Sent oldest first.
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

/** A poll that is not in the middle of a check, so the header reads "last checked ...". */
const settledHeader = (s: string) => /^last checked /m.test(s);
const LOCAL_ROW = /Local service: send mail to \S+ via SMTP 127\.0\.0\.1:(\d+)/;

/** The screen now, as a grid; `text` is what waitForScreen just matched, and the grid must show it. */
function grab(app: PtyApp, text: string): Grid {
  const grid = readGrid(app.terminal());
  const rows = grid.lines.map((cells) =>
    cells
      .map((c) => c.ch)
      .join('')
      .trimEnd(),
  );
  if (
    rows.join('\n') !==
    text
      .split('\n')
      .map((r) => r.trimEnd())
      .join('\n')
  ) {
    throw new Error(`the screen changed while it was read:\n${text}`);
  }
  return grid;
}

/** Runs the capture flow (the app in local mode, 100x30) and returns the three screens. */
export async function captureScreens(): Promise<Screens> {
  const home = await mkdtemp(join(tmpdir(), 'tempmail-capture-'));
  const app = spawnApp({
    command: { file: process.execPath, args: ['--import', FIXED_CLOCK, CLI, '--no-bell'] },
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, TZ: 'UTC' },
    cols: COLS,
    rows: ROWS,
  });
  try {
    const pickerText = await app.waitForScreen(
      (s) => isPicker(s) && /Local service: mail is received via SMTP/.test(s),
    );
    await app.settle();
    const picker = grab(app, await app.waitForScreen(isPicker));

    // The custom-name choice of the first domain, picked by its line number (the 1-9 keys).
    const choices = pickerText
      .split('\n')
      .filter((row) => /^\W*(?:\d )?(Random address|Custom name|External alias)/.test(row));
    const line = choices.findIndex((row) => row.includes('Custom name on'));
    if (line < 0 || line > 8) throw new Error(`no custom-name choice among the first nine:\n${pickerText}`);
    await app.press(String(line + 1), /Custom name on \S+ \(Enter/);
    await app.press(NAME, `✓ ${NAME}@`);
    const empty = await app.press(KEYS.ENTER, (s) => isInbox(s) && s.includes(`${NAME}@`) && LOCAL_ROW.test(s));
    const port = Number(LOCAL_ROW.exec(empty)![1]);
    const address = /^(\S+@\S+)/.exec(empty)![1]!;

    for (const [i, mail] of MAILS.entries()) {
      await sendMail({ smtpHost: '127.0.0.1', smtpPort: port }, { ...mail, to: address, headers: { Date: SENT } });
      // The local service tells the app of new mail as it stores it: no key, no wait for a poll.
      await app.waitForScreen(
        (s) => isInbox(s) && new RegExp(`^${i + 1} messages?\\b`, 'm').test(s) && s.includes(mail.subject),
      );
    }
    await app.press('g', (s) => isInbox(s) && selectedRow(app).includes(OPEN));
    // The badges come once the app has read each message's body (the code, the sign-in link): waited for,
    // or the capture shows the selected row with or without its [link] depending on the machine's speed.
    const inbox = grab(
      app,
      await app.waitForScreen(
        (s) =>
          isInbox(s) && settledHeader(s) && /1 new message/.test(s) && /\[code 482913\]/.test(s) && /\[link\]/.test(s),
      ),
    );

    await app.press(
      KEYS.ENTER,
      (s) => isViewer(s) && settledHeader(s) && s.includes('Almost there') && s.includes('[2]'),
    );
    await app.settle();
    const viewer = grab(app, await app.waitForScreen(isViewer));

    await app.press('q', isInbox);
    await app.press('q');
    const code = await app.exited();
    if (code !== 0) throw new Error(`the app exited with ${code}`);

    const screens: Screens = { picker, inbox, viewer };
    if (port !== DOC_SMTP_PORT) {
      for (const name of SCREEN_NAMES) {
        screens[name] = replaceText(screens[name], `127.0.0.1:${port}`, `127.0.0.1:${DOC_SMTP_PORT}`);
      }
    }
    return screens;
  } finally {
    app.kill();
    await rm(home, { recursive: true, force: true });
  }
}
