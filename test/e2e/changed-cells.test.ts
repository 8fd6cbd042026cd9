/**
 * Only the cells that change reach the terminal (src/tui/terminal/), and the screen stays right: the
 * built app in a real pseudo-terminal, left to tick its countdown many times, moved through its list,
 * resized and ticking again, shows exactly what a second app started fresh at the final size shows for
 * the same inbox and keys (cell by cell: characters, colours, bold, inverse), the two clocks' digits
 * aside. And a tick of the countdown is a few bytes, not a screen.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { newSession } from '../harness/http';
import { sendMail } from '../harness/service';
import { cells, feed } from '../tui/terminal/xterm-cells';
import { waitFor } from '../harness/wait';
import { isInbox, neutralEnv, startE2E, type E2E } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

let e2e: E2E | undefined;
let ticking: PtyApp | undefined;
let fresh: PtyApp | undefined;
afterEach(async () => {
  ticking?.kill();
  fresh?.kill();
  ticking = undefined;
  fresh = undefined;
  await e2e?.close();
  e2e = undefined;
});

const countdown = (app: PtyApp) => /expires in (\d+:\d\d(?::\d\d)?)/.exec(app.screen()[0] ?? '')?.[1];

/** Waits until the countdown has shown `n` more values. */
async function ticks(app: PtyApp, n: number): Promise<void> {
  const seen = new Set<string>();
  await app.waitForScreen(() => {
    const value = countdown(app);
    if (value) seen.add(value);
    return seen.size > n;
  }, 30_000);
}

/** Every cell of the screen, the clocks' digits (countdown, last checked) made alike. */
function screenCells(app: PtyApp): string[] {
  return cells(app.terminal()).map((row, y) => (y <= 1 ? row.replace(/\d(?=\d?\/)/g, '#') : row));
}

/** Resumes the saved address from the picker and waits for its four messages. */
async function openInbox(app: PtyApp, email: string): Promise<void> {
  await app.waitForScreen((s) => s.includes(`Resume ${email}`));
  await app.press(KEYS.ENTER, (s) => isInbox(s) && s.includes('Fourth message') && s.includes('First message'));
}

/**
 * The e2e service (its own app stopped: apps are started after the address is saved) with an address
 * that has four messages waiting, saved as if created earlier so every app resumes it alike; and how to
 * start an app on it, checks ten minutes apart (none in the middle of a comparison).
 */
async function savedInboxWithMail(): Promise<{ email: string; start: (cols: number, rows: number) => PtyApp }> {
  e2e = await startE2E();
  const { serve, home } = e2e;
  e2e.app.kill();
  const session = await newSession(serve.baseUrl);
  for (const subject of ['First message', 'Second message', 'Third message', 'Fourth message']) {
    await sendMail(serve, {
      from: 'Alice Example <alice@example.org>',
      to: session.email,
      subject,
      text: `Body of ${subject}`,
    });
  }
  const saved = {
    email: session.email,
    token: session.token,
    // Nine minutes left, whatever the service gave: the countdown says seconds (and ticks) below ten.
    expiresAt: new Date(Math.min(Date.parse(`${session.expires_at.replace(' ', 'T')}Z`), Date.now() + 9 * 60_000)),
  };
  openSavedSessions({ dir: join(home, 'state') }).save(saved, serve.baseUrl);
  const start = (cols: number, rows: number) =>
    spawnApp({
      args: ['--base-url', serve.baseUrl, '--poll-interval', '600'],
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
      cols,
      rows,
    });
  return { email: session.email, start };
}

describe('changed cells only', () => {
  it('after many ticks, keys and a resize the screen is what a fresh render draws', async () => {
    const { email, start } = await savedInboxWithMail();

    const app = start(80, 24);
    ticking = app;
    await openInbox(app, email);
    await app.press('j');
    await app.press('j');
    const before = app.mark();
    await ticks(app, 5);
    // A tick rewrites the countdown's digits, not the screen: far less than one full 80x24 frame each.
    const perTick = app.rawSince(before).length / 5;
    expect(perTick).toBeLessThan(200);

    app.resize(100, 30);
    await app.waitForScreen((s) => isInbox(s) && (app.screen()[0] ?? '').trimEnd().length > 80);
    await ticks(app, 3);
    await app.press('j');
    await ticks(app, 2);
    await app.settle();

    fresh = start(100, 30);
    await openInbox(fresh, email);
    for (let i = 0; i < 3; i++) await fresh.press('j');
    // Each last wrote a tick (the diff leaves the cursor below the last line it changed, so where the
    // cursor waits depends on what was drawn last: a key's rows or the countdown).
    await ticks(fresh, 1);
    await ticks(app, 1);
    await fresh.settle();
    await app.settle();
    expect(app.inverseRows()).toEqual(fresh.inverseRows());
    expect(screenCells(app)).toEqual(screenCells(fresh));
  });

  it('Ctrl-L draws the whole screen again over what another program wrote on it', async () => {
    const { email, start } = await savedInboxWithMail();
    const app = start(80, 24);
    ticking = app;
    await openInbox(app, email);
    await app.settle();
    const before = screenCells(app);
    // Another program (wall, a background job) writes over the screen; the app's diffs leave it there.
    // (It moves the cursor too, so the next ticks' digits land off their place: that is what Ctrl-L mends.)
    await feed(app.terminal(), '\x1b[5;10HBROADCAST FROM SOMEONE\x1b[12;1HMORE NOISE');
    const mark = app.mark();
    await waitFor(() => app.rawSince(mark).length > 0, { timeoutMs: 5000, message: 'a countdown tick' });
    expect(app.screen().join('\n')).toContain('BROADCAST FROM SOMEONE');
    await app.press('\x0c', (s) => !s.includes('BROADCAST') && !s.includes('MORE NOISE'));
    await app.settle();
    expect(screenCells(app).slice(0, -1)).toEqual(before.slice(0, -1));
  });
});
