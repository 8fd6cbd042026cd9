/**
 * Reading as mutt users do, on the built program in a real pseudo-terminal against a `serve` child,
 * with mail sent over real SMTP: the list marks unread (N) and attachments (@); in the viewer t switches
 * the part, J/K go from message to message keeping the view, / n N search with "2/3" on the status
 * line and Esc clears, R shows the source, S saves it as .eml; a transient status line fades by itself;
 * and what was read stays read after a restart.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { isInbox, isPicker, isViewer, neutralEnv, pickFirstDomain, startE2E, type E2E } from './flow';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

let e2e: E2E | undefined;
let again: PtyApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  again?.kill();
  again = undefined;
  await e2e?.close();
  e2e = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const status = (app: PtyApp) => app.screen()[app.screen().length - 3] ?? '';

describe('reading in the pseudo-terminal', () => {
  it('markers, t, J/K, / n N Esc, R, S, a fading status line, and the read state after a restart and a switch', async () => {
    const downloads = await mkdtemp(join(tmpdir(), 'tempmail-e2e-dl-'));
    dirs.push(downloads);
    e2e = await startE2E({
      cols: 80,
      rows: 24,
      args: ['--poll-interval', '1', '--no-bell', '--download-dir', downloads],
    });
    const { app, serve } = e2e;
    const address = await pickFirstDomain(app);

    await sendMail(serve, { to: address, subject: 'Plain first', text: 'The word apple is here.' });
    await sendMail(serve, {
      to: address,
      subject: 'Has a file',
      text: 'An apple and another apple.',
      attachments: [{ filename: 'list.txt', content: 'a list\n' }],
    });
    await sendMail(serve, {
      to: address,
      subject: 'Both parts',
      text: 'TEXT part words.',
      html: '<p>HTML part words.</p>',
    });
    let screen = await app.waitForScreen((s) => isInbox(s) && s.includes('3 messages · 3 unread'));
    expect(screen).toMatch(/^\+@ Sender +Has a file/m);
    expect(screen).toMatch(/^\+ {2}Sender +Both parts/m);

    // t: the text part, then the HTML part again; the rule says which. The newest first: the service
    // pushes each message as it comes, and the cursor stays on the one it was on as newer ones arrive.
    await app.press('g');
    screen = await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('HTML part words.'));
    expect(screen).toMatch(/── HTML part · lines 1-1 of 1 ─/);
    // The viewer's header counts what is still unread.
    expect(app.screen()[1]).toMatch(/ 2 unread$/);
    screen = await app.press('t', 'TEXT part words.');
    expect(screen).toMatch(/── text part · lines 1-1 of 1 ─/);

    // J: the next message, headers hidden as they were; K back; at the top, it says so.
    await app.press('H', (s) => !/^From: /m.test(s));
    screen = await app.press('J', 'An apple and another apple.');
    expect(screen).not.toMatch(/^From: /m);
    expect(screen).toMatch(/^Subject: +Has a file/m);
    await app.press('H', (s) => /^From: /m.test(s) && s.includes('list.txt'));
    await app.press('K', 'TEXT part words.');
    await app.press('K', 'No previous message: this is the first one in the list');

    // Search: counted as typed, kept with Enter, n/N with the position on the status line, Esc clears.
    await app.press('J', 'An apple and another apple.');
    await app.press('/', /^\/search in the message/m);
    await app.press('a');
    await app.press('p');
    await app.press('p', /^\/app +1\/2$/m);
    await app.press(KEYS.ENTER, '"app" 1/2 · n next, N previous, Esc clears');
    expect(status(app)).toContain('"app" 1/2');
    await app.press('n', '"app" 2/2');
    await app.press('n', '"app" 1/2 (from the top again)');
    screen = await app.press('N', '"app" 2/2 (from the bottom again)');
    expect(screen).toMatch(/^n\/N match {2}Esc clear/m);
    await app.press(KEYS.ESC, (s) => /^j\/k move {2}J\/K next/m.test(s) && /^Subject: +Has a file/m.test(s));

    // R: the raw source; S saves it; R again: the message.
    screen = await app.press('R', /^MIME-Version: 1\.0$/m);
    expect(screen).toMatch(/── source · lines 1-\d+ of \d+ ─/);
    expect(screen).toMatch(/^Content-Type: multipart\/mixed;/m);
    await app.press('S', /Saved to .*Has-a-file\.eml/);
    const eml = await readFile(join(downloads, 'Has-a-file.eml'), 'utf8');
    expect(eml).toMatch(/^Subject: Has a file\r?$/m);
    expect(eml).toContain('list.txt');
    expect(await readdir(downloads)).toEqual(['Has-a-file.eml']);
    await app.press('R', 'An apple and another apple.');

    // Back in the list: what was opened is read. A transient line fades on its own.
    screen = await app.press('q', (s) => isInbox(s) && s.includes('3 messages · 1 unread'));
    expect(screen).toMatch(/^\+ {2}Sender +Plain first/m);
    expect(screen).toMatch(/^ @ Sender +Has a file/m);
    await app.press('c', /Sent address to the terminal via OSC 52/);
    await app.waitForScreen((s) => isInbox(s) && !s.includes('Sent address'));

    await app.press('q');
    expect(await app.exited()).toBe(0);

    // A restart: the same address, resumed, keeps its read state.
    again = spawnApp({
      args: ['--base-url', serve.baseUrl, '--poll-interval', '1', '--no-bell'],
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: e2e.home },
      cols: 80,
      rows: 24,
    });
    await again.waitForScreen((s) => isPicker(s) && s.includes(`Resume ${address}`));
    screen = await again.press('1', (s) => isInbox(s) && s.includes('3 messages'));
    expect(screen).toContain('3 messages · 1 unread');
    expect(screen).toMatch(/^N {2}Sender +Plain first/m);
    expect(screen).toMatch(/^ {3}Sender +Both parts/m);
    // To a new address and back with s: still read.
    await again.press('n', /Leave .* for a new address\?/);
    await again.press('y', (s) => isPicker(s));
    await again.press(KEYS.ENTER, (s) => isInbox(s) && /No mail yet/.test(s));
    await again.press('s', 'saved addresses (2)');
    screen = await again.press('2', (s) => isInbox(s) && s.includes('3 messages'));
    expect(screen).toContain('3 messages · 1 unread');
    expect(screen).toMatch(/^ @ Sender +Has a file/m);
    await again.press('q');
    expect(await again.exited()).toBe(0);
  }, 120_000);
});
