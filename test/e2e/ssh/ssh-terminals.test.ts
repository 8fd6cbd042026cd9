/**
 * One service, two terminals at once, no crosstalk (issue 39.6): the real OpenSSH client twice against
 * one `serve`, each with a key and a terminal of its own. One runs in a terminal that clusters graphemes
 * and says so (xterm.js measuring by grapheme clusters, answering DEC mode 2027 as set), 90x26, colour;
 * the other in tmux (which does not know the mode), 64x20, TERM=xterm, NO_COLOR sent. Both have the
 * same emoji mail listed: each screen shows it measured for its own terminal, at its own size, in its
 * own colours, whichever session connected or drew last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { spawnApp, type PtyApp } from '../pty-harness';
import { newKey, sshArgs, startSshServe, tmuxSsh, type SshServe, type TmuxSsh } from './ssh-harness';

// Eight ZWJ families: 16 columns where a terminal draws each as one glyph, 88 at the widest measure.
const SUBJECT = `${'👨‍👩‍👧‍👦'.repeat(8)} fin`;
const ADDRESS = /(\S+@tempmail\.test)\s+expires in/;

let serve: SshServe;
let clustering: PtyApp;
let plain: TmuxSsh;

beforeAll(async () => {
  // The terminals here answer at once; a long deadline keeps a loaded machine from making it late.
  serve = await startSshServe([], undefined, { TEMPMAIL_TERMINAL_ANSWER_MS: '10000' });
}, 30_000);

afterAll(async () => {
  clustering?.kill();
  plain?.close();
  await serve?.stop();
});

/** The row of the inbox that lists the emoji mail (tmux's capture keeps a family's first few code points). */
const mailRow = (screen: string) => screen.split('\n').find((l) => l.includes('👨')) ?? '';

describe('two SSH sessions with different terminals at once', () => {
  it('draws each screen in its own terminal widths, size and colours', async () => {
    const ana = newKey(serve.dir, 'ana');
    const ben = newKey(serve.dir, 'ben');
    clustering = spawnApp({
      command: { file: 'ssh', args: [...sshArgs(serve.sshPort, ana), '-t', '127.0.0.1'] },
      cols: 90,
      rows: 26,
      widths: 'graphemes',
      mode2027: 1,
    });
    plain = tmuxSsh(serve.sshPort, ben, { cols: 64, rows: 20, term: 'xterm', env: { NO_COLOR: '1' } });

    // Both create an address (the picker's random one), the two sessions open together.
    const pick = /(\d) Random address on tempmail\.test/;
    const anaPicker = await clustering.waitForScreen(pick);
    const benPicker = await plain.waitForScreen(pick);
    await clustering.press(pick.exec(anaPicker)![1]!);
    plain.keys(pick.exec(benPicker)![1]!);
    const anaAddress = ADDRESS.exec(await clustering.waitForScreen(ADDRESS))![1]!;
    const benAddress = ADDRESS.exec(await plain.waitForScreen(ADDRESS))![1]!;
    expect(anaAddress).not.toBe(benAddress);

    await sendMail(serve, { to: anaAddress, subject: SUBJECT, text: 'hello' });
    await sendMail(serve, { to: benAddress, subject: SUBJECT, text: 'hello' });
    const anaInbox = await clustering.waitForScreen((s) => mailRow(s) !== '');
    const benInbox = await plain.waitForScreen(/👨/u);

    // The clustering terminal: each family measured as the one glyph it draws, the whole subject listed.
    expect(mailRow(anaInbox), anaInbox).toContain(`${'👨‍👩‍👧‍👦'.repeat(8)} fin`);
    // The other: each family at the widest (11 columns), the subject cut short of its end.
    expect(mailRow(benInbox), benInbox).not.toContain('fin');
    expect(mailRow(benInbox), benInbox).toContain('…');
    // Each at its own size: rows as wide as its own window, no wider.
    const width = (screen: string) => Math.max(...screen.split('\n').map((l) => l.trimEnd().length));
    expect(width(anaInbox)).toBeGreaterThan(64);
    expect(width(plain.screen())).toBeLessThanOrEqual(64);
    // Colour where it was not declined, none where NO_COLOR was sent.
    expect(clustering.raw().toString('utf8')).toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
    expect(plain.styled()).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;)/);

    // Keys in one session redraw it in its widths and leave the other's screen as it was.
    const benBefore = plain.screen();
    await clustering.press('j');
    await clustering.press('k');
    expect(mailRow(clustering.screenText())).toContain(`${'👨‍👩‍👧‍👦'.repeat(8)} fin`);
    plain.keys('r');
    await plain.waitForScreen(/👨/u);
    expect(mailRow(plain.screen())).toBe(mailRow(benBefore));
    expect(mailRow(clustering.screenText())).toContain(`${'👨‍👩‍👧‍👦'.repeat(8)} fin`);
  }, 90_000);
});
