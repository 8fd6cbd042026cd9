/**
 * The whole loop a user goes through, on the built program in a real pseudo-terminal against a `serve`
 * child: pick the first domain, read the address off the screen, receive a text+HTML mail over real
 * SMTP, read it, delete it (with the question), quit, and get the terminal back as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { GRAPHEME_QUERY } from '../../src/tui/terminal/grapheme-query';
import { sendMail } from '../harness/service';
import { headerRow, isConfirm, isInbox, isViewer, pickFirstDomain, rowsWith, startE2E, type E2E } from './flow';
import { KEYS } from './pty-harness';

const ENTER_ALT = '\x1b[?1049h';
const LEAVE_ALT = '\x1b[?1049l';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

describe('the app in a pseudo-terminal', () => {
  it('picks an address, receives, reads the HTML part, deletes with confirm and quits cleanly', async () => {
    e2e = await startE2E({ cols: 80, rows: 24 });
    const { app, serve } = e2e;
    const { domains } = await createApi({ baseUrl: serve.baseUrl }).listDomains();
    const firstDomain = domains[0]!.domain;

    const address = await pickFirstDomain(app, firstDomain);
    expect(address.endsWith(`@${firstDomain}`)).toBe(true);
    expect(headerRow(app)).toMatch(/expires in (5\d|60) min/);
    await app.waitForScreen(`No mail yet for ${address}.`);

    const subject = 'Your sign-up at Example';
    const htmlOnly = 'Purple giraffes confirm accounts at noon.';
    const beforeMail = app.mark();
    await sendMail(serve, {
      from: 'Example Shop <hello@shop.example.org>',
      to: address,
      subject,
      text: 'Plain text part: open the HTML version for the details.',
      html: `<html><body><h1>Hello</h1><p>${htmlOnly}</p><p><a href="https://shop.example.org/confirm?id=7">Confirm</a></p></body></html>`,
    });
    // Found by the app's own polling (every 5 s by default), not by a key press.
    const inbox = await app.waitForScreen((s) => isInbox(s) && s.includes(subject));
    expect(inbox).toContain('Example Shop');
    expect(inbox).toMatch(/1 message\b/);
    // The new mail rang the terminal's bell, once (a BEL of its own, not the end of an OSC string).
    await app.waitForScreen((s) => s.includes('1 new message'));
    const written = app
      .rawSince(beforeMail)
      .toString('utf8')
      .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '');
    expect(written.split('\x07')).toHaveLength(2);

    const viewer = await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes(htmlOnly));
    expect(viewer).toMatch(new RegExp(`^Subject: +${subject}`, 'm'));
    expect(viewer).toMatch(new RegExp(`^To: +${address.replace(/[.+]/g, '\\$&')}`, 'm'));
    expect(viewer).toContain('https://shop.example.org/confirm?id=7');
    expect(viewer).not.toContain('Plain text part');

    // Back in the list, read now: no longer counted as unread.
    await app.press('q', (s) => isInbox(s) && s.includes(subject) && /1 message · 0 unread/.test(s));

    const question = await app.press('d', isConfirm);
    expect(question).toContain(`Delete "${subject}"?`);
    await app.press('y', (s) => isInbox(s) && s.includes(`No mail yet for ${address}.`));
    // Only the status line ("Deleted ...") still names it; the list does not.
    const statusRow = rowsWith(app, 'q quit')[0]! - 1;
    expect(rowsWith(app, subject)).toEqual([statusRow]);

    // Deleted on the service, not only on screen: the next listing has the new mail and not the old one.
    await sendMail(serve, { to: address, subject: 'After the delete', text: 'second' });
    const after = await app.waitForScreen((s) => isInbox(s) && s.includes('After the delete'));
    expect(after).toMatch(/1 message\b/);
    expect(rowsWith(app, subject).filter((row) => row !== statusRow)).toEqual([]);

    await app.press('q');
    expect(await app.exited()).toBe(0);

    const raw = app.raw().toString('utf8');
    // Nothing is drawn on the user's screen: the first bytes are the question about grapheme clustering
    // (it draws nothing: src/tui/terminal/grapheme-query.ts), then the alternate screen.
    expect(raw.startsWith(GRAPHEME_QUERY + ENTER_ALT)).toBe(true);
    // Left the alternate screen after the last time it entered it, and nothing but "show cursor" after.
    const left = raw.lastIndexOf(LEAVE_ALT);
    expect(left).toBeGreaterThan(raw.lastIndexOf(ENTER_ALT));
    expect(raw.slice(left + LEAVE_ALT.length).replaceAll(SHOW_CURSOR, '')).toBe('');
    expect(raw.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(raw.lastIndexOf(HIDE_CURSOR));
    // The emulator agrees: main screen, no synchronized-output or mouse mode left on.
    const term = app.terminal();
    expect(term.buffer.active.type).toBe('normal');
    expect(term.modes.synchronizedOutputMode).toBe(false);
    expect(term.modes.mouseTrackingMode).toBe('none');
  });

  it('Ctrl+C quits cleanly too', async () => {
    e2e = await startE2E({ cols: 80, rows: 24 });
    const { app } = e2e;
    await pickFirstDomain(app);
    await app.press(KEYS.CTRL_C);
    // 0 (Ink's exitOnCtrlC ends the app like q does) or the shell convention 130: either way, cleanly.
    expect([0, 130]).toContain(await app.exited());
    const raw = app.raw().toString('utf8');
    expect(raw.lastIndexOf(LEAVE_ALT)).toBeGreaterThan(raw.lastIndexOf(ENTER_ALT));
    expect(raw.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(raw.lastIndexOf(HIDE_CURSOR));
    expect(app.terminal().buffer.active.type).toBe('normal');
  });
});
