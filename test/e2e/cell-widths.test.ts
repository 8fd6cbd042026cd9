/**
 * Mail in any script, and emoji sequences, keep the screen whole (issue 25 point 4): the built app at
 * 80x24, in a real pseudo-terminal and in a real tmux, shows an inbox of Thai (`ทำ` x40), Hindi (क्ष),
 * Tamil, Arabic with marks, emoji with skin tones and ZWJ, and flags; ticks, moves, opens and closes
 * messages; and then no terminal row has wrapped, the address and its countdown are on the first row,
 * the key line on the last, and the screen is cell for cell what a fresh redraw (Ctrl-L) draws.
 * xterm.js plays the terminal twice: measuring code point by code point (Unicode 11, as xterm and VTE)
 * and by grapheme clusters (as Ghostty and WezTerm); tmux 3.3 measures as it does. And where the
 * terminal says it clusters graphemes (DEC mode 2027), emoji are measured as the one glyph it draws.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { newSession } from '../harness/http';
import { sendMail } from '../harness/service';
import { cells } from '../tui/terminal/xterm-cells';
import { waitFor } from '../harness/wait';
import { isInbox, isViewer, neutralEnv, startE2E, type E2E } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';
import { tmuxApp, type TmuxApp } from './tmux-app';

const HINDI_BODY =
  'नमस्ते, आपका सत्यापन कोड 482913 है। क्षमा करें, यह कोड दस मिनट में समाप्त हो जाएगा। ' +
  'कृपया इसे किसी के साथ साझा न करें। धन्यवाद, सहायता टीम। '.repeat(6);

/** One mail per script, sent oldest first; the emoji one last, so it is on top. */
const MAILS = [
  { from: 'สมชาย <somchai@example.org>', subject: 'ทำ'.repeat(40), text: `${'ทำ'.repeat(120)}\nน้ำใจ ภาษาไทย` },
  { from: 'राज कुमार <raj@example.org>', subject: 'आपका सत्यापन कोड: क्षमा करें, हिन्दी में संदेश', text: HINDI_BODY },
  { from: 'கொடி <kodi@example.org>', subject: 'தமிழ் செய்தி: கொண்டாட்டம் ஸ்ரீ', text: 'தமிழ் '.repeat(40) },
  { from: 'سارة <sara@example.org>', subject: 'مَرْحَبًا بِكُمْ فِي الْبَرِيدِ الْمُؤَقَّتِ', text: 'اَلْعَرَبِيَّةُ '.repeat(30) },
  { from: 'Travel <trips@example.org>', subject: 'Trip 🇫🇷🇯🇵🇩🇪🇧🇷 booked ✈️ 1️⃣ ❤️ see you', text: '🇫🇷🇯🇵 '.repeat(30) },
  {
    from: 'Ana 👩🏽‍💻 <ana@example.org>',
    subject: 'Thanks 👍🏽👍🏿 from the 👨‍👩‍👧‍👦 and 🏳️‍🌈 team 🧑‍🌾⛹🏻‍♂️ code',
    text: `${'👍🏽👍🏾👍🏿 👩🏽‍💻👨‍👩‍👧 '.repeat(20)}\nमी‌خواهم এ‌ই`,
  },
];
const SUBJECT_START = ['ทำทำ', 'आपका', 'தமிழ்', 'مَرْحَبًا', 'Trip', 'Thanks'];

let e2e: E2E | undefined;
const apps: PtyApp[] = [];
let tmux: TmuxApp | undefined;
afterEach(async () => {
  for (const app of apps.splice(0)) app.kill();
  await tmux?.close();
  tmux = undefined;
  await e2e?.close();
  e2e = undefined;
});

/** The service with an address whose six mails are waiting, saved so the app resumes it; the app's args and env. */
async function inboxOfScripts(): Promise<{ email: string; args: string[]; env: NodeJS.ProcessEnv }> {
  e2e = await startE2E();
  const { serve, home } = e2e;
  e2e.app.kill();
  const session = await newSession(serve.baseUrl);
  for (const mail of MAILS) await sendMail(serve, { ...mail, to: session.email });
  const saved = {
    email: session.email,
    token: session.token,
    // Nine minutes left, whatever the service gave: the countdown says seconds (and ticks) below ten.
    expiresAt: new Date(Math.min(Date.parse(`${session.expires_at.replace(' ', 'T')}Z`), Date.now() + 9 * 60_000)),
  };
  openSavedSessions({ dir: join(home, 'state') }).save(saved, serve.baseUrl);
  return {
    email: session.email,
    args: ['--base-url', serve.baseUrl, '--poll-interval', '600'],
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
  };
}

const allMail = (s: string) =>
  isInbox(s) && /^6 messages\b/m.test(s) && SUBJECT_START.every((start) => s.includes(start));
const countdown = (row: string) => /expires in (\d+:\d\d(?::\d\d)?)/.exec(row)?.[1];

/** What the screen must look like whatever the terminal: header on top, keys at the bottom. */
function expectWhole(rows: string[], email: string, keyLine: RegExp): void {
  expect(rows[0], rows.join('\n')).toContain(email);
  expect(countdown(rows[0] ?? ''), rows.join('\n')).toBeDefined();
  // The frame is a row shorter than the terminal (it ends with a newline): its last row is the keys'.
  const last = rows.findLastIndex((row) => row.trim() !== '');
  expect(last, rows.join('\n')).toBe(rows.length - 2);
  expect(rows[last], rows.join('\n')).toMatch(keyLine);
}

/** Rows that continue the row above because the terminal wrapped it (xterm.js). */
function wrappedRows(app: PtyApp): number[] {
  const buffer = app.terminal().buffer.active;
  const out: number[] = [];
  for (let y = 0; y < app.terminal().rows; y++) if (buffer.getLine(buffer.viewportY + y)?.isWrapped) out.push(y);
  return out;
}

/** The column of the last cell with something drawn in row `y` (xterm.js). */
function lastCell(app: PtyApp, y: number): number {
  const buffer = app.terminal().buffer.active;
  const line = buffer.getLine(buffer.viewportY + y);
  for (let x = app.terminal().cols - 1; line && x >= 0; x--)
    if ((line.getCell(x)?.getChars() ?? '').trim() !== '') return x;
  return -1;
}

/** Every cell, the clocks' digits made alike. */
const sameClock = (rows: string[]) => rows.map((row, y) => (y <= 1 ? row.replace(/\d/g, '#') : row));

/** Waits for `n` more values of the countdown on the first row. */
async function ticks(
  read: () => string,
  wait: (match: (s: string) => boolean) => Promise<string>,
  n: number,
): Promise<void> {
  const seen = new Set<string>();
  await wait(() => {
    const value = countdown(read());
    if (value) seen.add(value);
    return seen.size > n;
  });
}

describe('cell widths in a real terminal', () => {
  it('keeps every row on its row in a pty, whether the terminal measures code point by code point or by grapheme clusters', async () => {
    const { email, args, env } = await inboxOfScripts();
    for (const widths of ['11', 'graphemes'] as const) {
      const app = spawnApp({ args, env, cols: 80, rows: 24, widths });
      apps.push(app);
      await app.waitForScreen((s) => s.includes(`Resume ${email}`));
      await app.press(KEYS.ENTER, allMail);
      await ticks(
        () => app.screen()[0] ?? '',
        (m) => app.waitForScreen(m),
        2,
      );
      expectWhole(app.screen(), email, /Enter open/);
      expect(wrappedRows(app), app.screenText()).toEqual([]);

      // Down the list, each message opened: rows of every script are drawn, diffed and erased.
      for (let i = 0; i < MAILS.length; i++) {
        await app.press(KEYS.ENTER, isViewer);
        expectWhole(app.screen(), email, /Esc back/);
        expect(wrappedRows(app), app.screenText()).toEqual([]);
        await app.press(KEYS.ESC, isInbox);
        await app.press('j');
      }
      await app.press('g', isInbox);
      await ticks(
        () => app.screen()[0] ?? '',
        (m) => app.waitForScreen(m),
        1,
      );
      await app.settle();
      expectWhole(app.screen(), email, /Enter open/);
      expect(wrappedRows(app), app.screenText()).toEqual([]);
      const before = sameClock(cells(app.terminal()));
      const mark = app.mark();
      await app.press('\x0c');
      // The app erased the screen and drew it again whole.
      await waitFor(() => app.rawSince(mark).toString('latin1').includes('\x1b[2J'), {
        timeoutMs: 10_000,
        message: 'the redraw',
      });
      await app.settle();
      expect(sameClock(cells(app.terminal())).slice(0, -1)).toEqual(before.slice(0, -1));
      app.kill();
    }
  }, 120_000);

  it('measures emoji as one glyph where the terminal says it clusters graphemes (mode 2027 set): whole subjects, columns aligned', async () => {
    const { email, args, env } = await inboxOfScripts();
    // The harness answers at once; a long deadline keeps a loaded machine from making the answer late.
    const app = spawnApp({
      args,
      env: { ...env, TEMPMAIL_TERMINAL_ANSWER_MS: '10000' },
      cols: 80,
      rows: 24,
      widths: 'graphemes',
      mode2027: 1,
    });
    apps.push(app);
    await app.waitForScreen((s) => s.includes(`Resume ${email}`));
    const inbox = await app.press(KEYS.ENTER, allMail);
    // Measured at the widest, the skin tones, the family and the flags would not leave room for all of it.
    expect(inbox).toMatch(/team .* code +\d\d:\d\d/);
    expect(inbox).toMatch(/Trip .* booked .* see you +\d\d:\d\d/);
    // The emoji rows' times end where the Arabic row's does (a script every terminal draws as measured):
    // the terminal drew the emoji as they were measured. (Thai and Indic rows end a few columns early
    // here: a clustering terminal may draw them narrower than the widest measure, never wider.)
    const ends = app
      .screen()
      .map((row, y) => (/^N /.test(row) ? lastCell(app, y) : -1))
      .filter((x) => x >= 0);
    expect(ends).toHaveLength(MAILS.length);
    const [ana, travel, arabic] = ends;
    expect([ana, travel], `${ends.join(' ')}\n${app.screenText()}`).toEqual([arabic, arabic]);
    for (const end of ends) expect(end).toBeLessThanOrEqual(arabic!);
    expectWhole(app.screen(), email, /Enter open/);
    expect(wrappedRows(app), app.screenText()).toEqual([]);
  });

  it('keeps every row on its row in tmux, and a redraw (Ctrl-L) changes nothing', async () => {
    const { email, args, env } = await inboxOfScripts();
    tmux = tmuxApp(args, env, 80, 24);
    await tmux.waitForScreen((s) => s.includes(`Resume ${email}`));
    tmux.keys('Enter');
    await tmux.waitForScreen(allMail);
    const app = tmux;
    await ticks(
      () => app.screen()[0] ?? '',
      (m) => app.waitForScreen(m),
      2,
    );
    expectWhole(tmux.screen(), email, /Enter open/);
    expect(tmux.wrappedRows(), tmux.screen().join('\n')).toBe(0);

    for (let i = 0; i < MAILS.length; i++) {
      tmux.keys('Enter');
      await tmux.waitForScreen(isViewer);
      expectWhole(tmux.screen(), email, /Esc back/);
      expect(tmux.wrappedRows(), tmux.screen().join('\n')).toBe(0);
      tmux.keys('Escape');
      await tmux.waitForScreen(isInbox);
      tmux.keys('j');
    }
    tmux.keys('g');
    await ticks(
      () => app.screen()[0] ?? '',
      (m) => app.waitForScreen(m),
      1,
    );
    const before = sameClock(tmux.styled());
    expectWhole(tmux.screen(), email, /Enter open/);
    const written = tmux.output().length;
    tmux.keys('C-l');
    // The app erased the screen and drew it again whole; the countdown's digits are made alike.
    await waitFor(() => tmux!.output().slice(written).includes('\x1b[2J'), {
      timeoutMs: 10_000,
      message: 'the redraw',
    });
    await tmux.waitForScreen(allMail);
    expect(sameClock(tmux.styled())).toEqual(before);
    expect(tmux.wrappedRows()).toBe(0);
  }, 90_000);
});
