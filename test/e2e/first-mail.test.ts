/**
 * The first ten minutes (issue 26), on the built program in a real pseudo-terminal in local mode, as the
 * README starts a newcomer: the empty inbox says to press T, which sends this address a sample message
 * over SMTP to the app's own service; it shows at once (checks an hour apart: the service's push lists
 * it); `c` copies its code (OSC 52); after `R`, a message opened from the list shows the message; a
 * search that finds nothing is cleared by the first Esc, and only the second goes back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { isInbox, isViewer, neutralEnv, pickFirstDomain, selectedRow } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

const OSC52 = /\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)/g;
const copied = (bytes: Buffer) =>
  [...bytes.toString('latin1').matchAll(OSC52)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));

let app: PtyApp | undefined;
let home: string | undefined;
afterEach(async () => {
  app?.kill();
  app = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

/** The app in local mode at 100x30, its data in a temp home, no display (copying goes to OSC 52). */
async function startLocal(): Promise<PtyApp> {
  home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-first-'));
  const env = { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, DISPLAY: undefined, WAYLAND_DISPLAY: undefined };
  // Checks an hour apart: what lists new mail is the service telling the app it stored it.
  return spawnApp({ args: ['--poll-interval', '3600'], env, cols: 100, rows: 30 });
}

const SMTP_TARGET = /via SMTP (127\.0\.0\.1):(\d+)/;

describe('a first mail with one key, in local mode', () => {
  it('the empty inbox says to press T; T delivers a sample over SMTP that shows at once, its code found; c copies it', async () => {
    app = await startLocal();
    const address = await pickFirstDomain(app);
    const empty = await app.waitForScreen(
      (s) => isInbox(s) && /Press T to send it a sample message via SMTP 127\.0\.0\.1:\d+/.test(s),
    );
    expect(empty).toContain(`No mail yet for ${address}.`);
    expect(empty).not.toContain('swaks');

    await app.press('T', (s) => isInbox(s) && /^\+ {2}tempmail-tui sample +Your tempmail-tui sample/m.test(s));
    // Its code is found in the body the inbox fetched ahead (the newest unread ones).
    await app.waitForScreen((s) => isInbox(s) && /\[code \d{6}\]/.test(s));
    const screen = await app.press(
      KEYS.ENTER,
      (s) =>
        isViewer(s) && /^Code: +\d{6}/m.test(s) && /^Link: +\[1\] https:\/\/example\.com\/confirm\?token=/m.test(s),
    );
    const code = /^Code: +(\d{6})/m.exec(screen)![1]!;
    expect(screen).toMatch(/── HTML part · lines/);
    expect(screen).toMatch(/^To: +\S+@/m);
    const mark = app.mark();
    await app.press('c', `Sent code ${code} to the terminal via OSC 52`);
    expect(copied(app.rawSince(mark))).toEqual([code]);
    await app.press('q', isInbox);
    await app.press('q');
    expect(await app.exited()).toBe(0);
  }, 90_000);

  it('after R a message opened from the list shows the message; a search that finds nothing: Esc clears it, Esc again goes back', async () => {
    app = await startLocal();
    const address = await pickFirstDomain(app);
    const [, smtpHost, smtpPort] = SMTP_TARGET.exec(await app.waitForScreen((s) => isInbox(s) && SMTP_TARGET.test(s)))!;
    for (const subject of ['Older one', 'Newer one']) {
      await sendMail(
        { smtpHost: smtpHost!, smtpPort: Number(smtpPort) },
        { to: address, subject, text: `Words of the ${subject.toLowerCase()}.` },
      );
      await app.waitForScreen((s) => isInbox(s) && s.includes(subject));
    }
    // The selection stayed on the first to come; g: the newest.
    await app.press('g', (s) => isInbox(s) && selectedRow(app!).includes('Newer one'));
    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('Words of the newer one.'));
    await app.press('R', (s) => isViewer(s) && /── source · lines/.test(s));
    await app.press(KEYS.ESC, isInbox);
    let screen = await app.press('j', (s) => isInbox(s) && selectedRow(app!).includes('Older one'));
    screen = await app.press(KEYS.ENTER, (s) => isViewer(s) && /^Subject: +Older one/m.test(s) && /── .*lines/.test(s));
    expect(screen).not.toMatch(/── source/);
    expect(screen).toContain('Words of the older one.');

    await app.press('/', /^\/search in the message/m);
    for (const key of 'zzq') await app.press(key);
    await app.press(KEYS.ENTER, 'No match for "zzq" · Esc clears');
    screen = await app.press(KEYS.ESC, (s) => isViewer(s) && /^j\/k move {2}J\/K next/m.test(s));
    expect(screen).toMatch(/^Subject: +Older one/m);
    await app.press(KEYS.ESC, isInbox);
    await app.press('q');
    expect(await app.exited()).toBe(0);
  }, 90_000);
});
