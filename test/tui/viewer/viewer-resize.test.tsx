/**
 * Resizing the viewer keeps the text the reader was at on top, not the line number: the body is wrapped
 * anew for the width, so line 52 at 80 columns is other text at 60. At the end of a message, the window
 * stays at the end. Real service, real SMTP, the real App; waits on frames.
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const WORDS =
  'amber basil cedar dune ember fjord grove heath inlet juniper kelp lichen marsh nettle orchard pine quarry reed sorrel thicket'.split(
    ' ',
  );
/** A paragraph of some 400 characters; only paragraph 9 holds the word Zanzibar, in its middle. */
function paragraph(n: number): string {
  const words = Array.from({ length: 60 }, (_, i) => WORDS[(i * 7 + n * 3) % WORDS.length] as string);
  if (n === 9) words.splice(30, 0, 'Zanzibar');
  return `Paragraph ${n}: ${words.join(' ')}.`;
}
const BODY = Array.from({ length: 24 }, (_, i) => paragraph(i + 1)).join('\n\n');
const SUBJECT = 'A long read to resize';

const POSITION = /lines (\d+)-(\d+) of (\d+)/;
const position = (frame: string) => (POSITION.exec(frame) ?? []).slice(1).map(Number);
/** The body lines on screen: the rows below the rule that carries the position. */
function bodyLines(frame: string): string[] {
  const rows = frame.split('\n');
  const rule = rows.findIndex((r) => r.startsWith('──') && POSITION.test(r));
  return rule < 0 ? [] : rows.slice(rule + 1);
}
const ruleWidth = (frame: string) => frame.split('\n').find((r) => r.startsWith('──') && POSITION.test(r))?.length ?? 0;

async function openLongMessage(harness: AppHarness, text = BODY): Promise<void> {
  const address = await pickFirstDomain(harness);
  await sendMail(harness.svc, { to: address, subject: SUBJECT, text });
  await harness.screen.press('r');
  await harness.screen.waitFor(SUBJECT);
  await harness.screen.press(KEY.ENTER);
  await harness.screen.waitFor(POSITION);
}

/** Scrolls down a line at a time until the top body line holds `word`. */
async function scrollUntilTopHas(harness: AppHarness, word: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const frame = harness.screen.frame();
    if (bodyLines(frame)[0]?.includes(word)) return;
    const [top] = position(frame);
    await harness.screen.press('j');
    await harness.screen.waitFor((f) => position(f)[0] !== top);
  }
  throw new Error(`never got ${word} to the top:\n${harness.screen.frame()}`);
}

/** Resizes and waits for the viewer drawn at the new width. */
async function resizeTo(harness: AppHarness, columns: number, rows: number): Promise<string> {
  harness.screen.resize(columns, rows);
  return harness.screen.waitFor((f) => ruleWidth(f) === columns && f.split('\n').length <= rows);
}

describe('viewer resize', () => {
  it('keeps the text at the top of the window through resizes to 60x20 and 120x40 and back', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    await openLongMessage(h);
    await scrollUntilTopHas(h, 'Zanzibar');
    const [top80] = position(h.screen.frame());
    expect(top80).toBeGreaterThan(40);

    for (const [columns, rows] of [
      [60, 20],
      [120, 40],
      [80, 24],
    ] as const) {
      const frame = await resizeTo(h, columns, rows);
      // The old top line's text is now at most two lines, and it is at the top.
      expect(bodyLines(frame).slice(0, 2).join(' '), `at ${columns}x${rows}:\n${frame}`).toContain('Zanzibar');
    }
    // Back at 80x24, the very same line is on top.
    expect(position(h.screen.frame())[0]).toBe(top80);
    // A window too tall to scroll that far shows the end; back at 80x24, the reader's line is on top again.
    const tall = await resizeTo(h, 160, 90);
    expect(position(tall)[0]).toBeLessThan(top80 as number);
    await resizeTo(h, 80, 24);
    expect(position(h.screen.frame())[0]).toBe(top80);
  });

  it('stays at the end of the message when the end was shown', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    await openLongMessage(h);
    await h.screen.press('G');
    await h.screen.waitFor((f) => {
      const [, last, total] = position(f);
      return last !== undefined && last === total;
    });
    for (const [columns, rows] of [
      [60, 20],
      [120, 40],
      [100, 18],
    ] as const) {
      const frame = await resizeTo(h, columns, rows);
      const [, last, total] = position(frame);
      expect(last, `at ${columns}x${rows}:\n${frame}`).toBe(total);
      expect(bodyLines(frame).join(' ')).toContain('Paragraph 24:');
    }
  });

  it('keeps the place through the re-render of a big message, which is wrapped anew in the background', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    // ~100 KB: more than the viewer converts at once, so a resize shows "Rendering" before the new lines.
    const big = Array.from({ length: 240 }, (_, i) =>
      paragraph(i === 225 ? 9 : (i % 8) + 1).replace(/^Paragraph \d+/, `Part ${i + 1}`),
    );
    await openLongMessage(h, big.join('\n\n'));
    await h.screen.press('G');
    // Page up until the word shows, then line down until it is on top.
    while (!bodyLines(h.screen.frame()).join(' ').includes('Zanzibar')) {
      const [top] = position(h.screen.frame());
      await h.screen.press('b');
      await h.screen.waitFor((f) => position(f)[0] !== top);
    }
    await scrollUntilTopHas(h, 'Zanzibar');
    for (const [columns, rows] of [
      [60, 20],
      [120, 40],
    ] as const) {
      const frame = await resizeTo(h, columns, rows);
      expect(bodyLines(frame).slice(0, 2).join(' '), `at ${columns}x${rows}:\n${frame}`).toContain('Zanzibar');
    }
  });
});
