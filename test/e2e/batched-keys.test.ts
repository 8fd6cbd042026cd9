/**
 * Keys that arrive together, as a laggy SSH link delivers them (several keystrokes in one packet, so in
 * one read): each is a key of its own, on the built program in a real pseudo-terminal. Before, Ink took
 * such a read for pasted text and no binding matched it: `jj` did not move, three DELs erased nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { splitKeys } from '../../src/tui/widgets/key-stdin';
import { sendMail } from '../harness/service';
import { addressOnScreen, isInbox, isPicker, isViewer, selectedRow, startE2E, type E2E } from './flow';

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

describe('splitKeys', () => {
  it('splits plain characters and keeps escape sequences whole', () => {
    expect(splitKeys('jj\r\x7f\x7fé日')).toEqual({ keys: ['j', 'j', '\r', '\x7f', '\x7f', 'é', '日'], rest: '' });
    expect(splitKeys('\x1b[A\x1b[B\x1b[5~\x1bOPq')).toEqual({
      keys: ['\x1b[A', '\x1b[B', '\x1b[5~', '\x1bOP', 'q'],
      rest: '',
    });
    // Alt+key, Alt+arrow, an emoji outside the BMP.
    expect(splitKeys('\x1bj\x1b\x1b[A😀')).toEqual({ keys: ['\x1bj', '\x1b\x1b[A', '😀'], rest: '' });
    // A sequence cut by the read waits for the rest; a lone Esc too.
    expect(splitKeys('j\x1b[1;')).toEqual({ keys: ['j'], rest: '\x1b[1;' });
    expect(splitKeys('\x1b')).toEqual({ keys: [], rest: '\x1b' });
  });
});

describe('keys that arrive in one read', () => {
  it('each moves, opens, deletes and types: jj, j + Enter, three DELs, a name typed in one go', async () => {
    e2e = await startE2E({ cols: 80, rows: 24, args: ['--no-bell'] });
    const { app, serve } = e2e;
    const picker = await app.waitForScreen(isPicker);
    const choices = picker
      .split('\n')
      .filter((row) => /^\W*(?:\d )?(Random address|Custom name|External alias)/.test(row));
    const line = choices.findIndex((row) => row.includes('Custom name on'));
    await app.press(String(line + 1), /Custom name on \S+ \(Enter/);
    // Typed and corrected in single writes: the three DELs erase three characters.
    await app.press('batchxyz', '✓ batchxyz@');
    await app.press('\x7f\x7f\x7f', (s) => s.includes('✓ batch@'));
    await app.press('ed\r', (s) => isInbox(s) && s.includes('batched@'));
    const address = addressOnScreen(app);

    for (const subject of ['Mail one', 'Mail two', 'Mail three'])
      await sendMail(serve, { to: address, subject, text: `Body of ${subject}` });
    await app.press('r', (s) => isInbox(s) && /3 messages/.test(s));
    // A poll or a push between the three deliveries keeps the selection on the message it was on (by
    // id): g puts it on the newest whatever came first.
    await app.press('g', () => selectedRow(app).includes('Mail three'));
    await app.press('jj', () => selectedRow(app).includes('Mail one'));
    // A move and Enter together open the message the move landed on.
    await app.press('k\r', (s) => isViewer(s) && /^Subject: +Mail two/m.test(s));
    // Back, then delete with its confirmation, all in one read.
    await app.press('qdy', (s) => isInbox(s) && /2 messages/.test(s) && s.includes('Deleted "Mail two"'));
    expect(app.screenText()).toMatch(/Mail three/);
    expect(app.screenText()).toMatch(/Mail one/);
    await app.press('q');
    expect(await app.exited()).toBe(0);
  });
});
