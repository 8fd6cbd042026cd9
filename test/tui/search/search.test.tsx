/**
 * `/` in the viewer, against the real service over real SMTP: matches counted as typed, Enter keeps the
 * search ("3/7" on the status line), n/N step and come round, Esc clears, smart case; matches are marked
 * with Ink's own styling (inverse for the current one), and a match inside hostile text stays text: every
 * frame holds only the styling codes Ink draws with, never a payload's sequence.
 */
import chalk from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { controlTokens, isInkVocabulary, showToken } from '../../e2e/terminal-bytes';
import { CONTROL_PAYLOADS } from '../../safety/pty/pty-bytes';
import { expectedMarkers, hostileValue } from '../../safety/payloads';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();
const level = chalk.level;
beforeAll(() => {
  // Tests write to a pipe, where chalk draws no styling at all; the marking is what is tested here.
  chalk.level = 1;
});
afterAll(() => {
  chalk.level = level;
});

const INVERSE = '\x1b[7m';
const lastRaw = (app: AppHarness) => app.screen.frames.at(-1) ?? '';

async function open(app: AppHarness, subject: string, text: string, columns = 80) {
  const address = await pickFirstDomain(app);
  await sendMail(app.svc, { to: address, subject, text });
  await app.screen.press('r');
  await app.screen.waitFor(subject);
  await app.screen.press(KEY.ENTER);
  await app.screen.waitFor(/lines 1-\d+ of \d+/);
  void columns;
}

const BODY = [
  'The Code below confirms it.',
  ...Array.from({ length: 40 }, (_, i) => `filler line ${i + 1}`),
  'your code is 482913',
  'again: CODE 482913',
  ...Array.from({ length: 40 }, (_, i) => `more filler ${i + 1}`),
  'last code here',
].join('\n');

describe('search in the message', () => {
  it('counts as it is typed, keeps it on Enter (3/7 on the status line), n/N step and come round, Esc clears', async () => {
    h = await startApp();
    await open(h, 'Searching', BODY);
    await h.screen.press('/');
    await h.screen.waitFor(/^\/search in the message/m);
    await h.screen.press('c', 'o');
    // Counted as typed ("co" is in "confirms" too), from where the reader is.
    let frame = await h.screen.waitFor(/^\/co +1\/5$/m);
    // Lower case: every case counts ("Code", "code", "CODE", "code").
    await h.screen.press('d', 'e');
    await h.screen.waitFor(/^\/code +1\/4$/m);
    await h.screen.press(KEY.ENTER);
    frame = await h.screen.waitFor('"code" 1/4 · n next, N previous, Esc clears');
    expect(frame).toMatch(/^n\/N match {2}Esc clear/m);
    await h.screen.press('n');
    frame = await h.screen.waitFor('"code" 2/4');
    // The window followed the match down the message.
    expect(frame).toContain('your code is 482913');
    expect(frame).not.toContain('The Code below');
    // The current match is drawn inverse, the text around it untouched.
    expect(lastRaw(h)).toMatch(new RegExp(`your ${escapeRe(INVERSE)}(?:\\x1b\\[1m)?code`));
    await h.screen.press('n', 'n');
    await h.screen.waitFor('"code" 4/4');
    await h.screen.press('n');
    frame = await h.screen.waitFor('"code" 1/4 (from the top again)');
    expect(frame).toContain('The Code below');
    await h.screen.press('N');
    await h.screen.waitFor('"code" 4/4 (from the bottom again)');
    // Esc clears the search (not back to the list); q still goes back.
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor(/^j\/k move {2}J\/K next/m);
    expect(frame).toContain('Subject:  Searching');
    expect(lastRaw(h)).not.toContain(INVERSE);
    await h.screen.press('n');
    expect(h.screen.frame()).toContain('Subject:  Searching');
    await h.screen.press('q');
    await h.screen.waitFor('Enter open');
  });

  it('a capital makes case matter; no match says so and stays set until Esc (issue 26)', async () => {
    h = await startApp();
    await open(h, 'Casing', BODY);
    await h.screen.press('/', ...'CODE', KEY.ENTER);
    let frame = await h.screen.waitFor('"CODE" 1/1');
    expect(frame).toContain('again: CODE 482913');
    await h.screen.press(KEY.ESC, '/', ...'Nowhere', KEY.ENTER);
    frame = await h.screen.waitFor('No match for "Nowhere" · Esc clears');
    expect(frame).toMatch(/^n\/N match {2}Esc clear/m);
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor(/^j\/k move {2}J\/K next/m);
    expect(frame).toContain('Subject:  Casing');
    // Esc while typing leaves the viewer as it was.
    await h.screen.press('/', 'x', KEY.ESC);
    frame = await h.screen.waitFor(/^j\/k move {2}J\/K next/m);
    expect(frame).toContain('Subject:  Casing');
  });

  it('marks matches inside hostile text with Ink styling only: no payload sequence in any frame', async () => {
    h = await startApp({ columns: 200, rows: 120 });
    const text = CONTROL_PAYLOADS.map((p) => hostileValue(p, 'textBody')).join('\n');
    await open(h, 'Hostile search', text);
    const from = h.screen.frames.length;
    // "tz" ends every right marker ("Q07tz"), right after each payload: every payload's line is marked.
    await h.screen.press('/', 't', 'z', KEY.ENTER);
    await h.screen.waitFor(/"tz" 1\/\d+/);
    const count = Number(/"tz" 1\/(\d+)/.exec(h.screen.frame())![1]);
    // One per payload: a right marker whose Q an unterminated sequence took still ends in "tz".
    expect(count).toBe(CONTROL_PAYLOADS.length);
    for (let i = 2; i <= Math.min(count, 6); i++) {
      await h.screen.press('n');
      await h.screen.waitFor(`"tz" ${i}/${count}`);
    }
    // A pasted "search" full of controls is typed as text, and finds nothing it could not show.
    await h.screen.press('/');
    await h.screen.type('\x1b]0;owned\x07\x9b31m');
    await h.screen.press(KEY.ENTER);
    const frames = h.screen.frames.slice(from);
    expect(frames.length).toBeGreaterThan(3);
    // The marking was drawn (so the check below saw it), as Ink's inverse and underline.
    expect(frames.some((f) => f.includes(INVERSE))).toBe(true);
    expect(frames.some((f) => f.includes('\x1b[4m'))).toBe(true);
    for (const f of frames) {
      const foreign = controlTokens(f).filter((t) => !isInkVocabulary(t) && t !== '\n');
      expect(foreign.map(showToken)).toEqual([]);
      for (const p of CONTROL_PAYLOADS) if (p.seq !== '\x1b') expect(f.includes(p.seq)).toBe(false);
    }
    // And the words around every payload are on screen.
    const plain = h.screen.frame();
    for (const p of CONTROL_PAYLOADS.slice(0, 10)) expect(plain).toContain(expectedMarkers(p, 'textBody')[0]);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
