/**
 * Long headers in the viewer: Subject, From and To wrap under the value column over up to 3 lines (cut
 * with … past that), Date stays one line, and the body gives way so the frame never outgrows the terminal.
 */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const BODY = Array.from({ length: 40 }, (_, i) => `Body row ${i + 1}`).join('\n');

/** The lines of header `label` in `frame`: its own and the continuation lines under the value column. */
function headerBlock(frame: string, label: string): string[] {
  const lines = frame.split('\n');
  const i = lines.findIndex((l) => l.startsWith(`${label}:`));
  if (i < 0) return [];
  let end = i + 1;
  while (end < lines.length && /^ {10}\S/.test(lines[end]!)) end++;
  return lines.slice(i, end);
}

/** The frame fits the terminal: no more lines than rows, none wider than columns, address on top, footer last. */
function expectFits(frame: string, address: string, columns: number, rows: number) {
  const lines = frame.split('\n');
  expect(lines.length).toBeLessThanOrEqual(rows);
  expect(lines.filter((l) => textWidth(l) > columns)).toEqual([]);
  expect(lines[0]).toMatch(new RegExp(`^${address.slice(0, 10)}`));
  expect(lines.at(-1)).toMatch(/Esc back/);
}

/** Sends a message to a fresh address, opens it, returns the address and the viewer frame. */
async function openWith(app: AppHarness, input: { subject?: string; from?: string; raw?: (to: string) => string }) {
  const address = await pickFirstDomain(app);
  if (input.raw) await sendMail(app.svc, { to: address, raw: input.raw(address) });
  else await sendMail(app.svc, { to: address, from: input.from, subject: input.subject, text: BODY });
  await app.screen.press('r');
  await app.screen.waitFor((f) => !f.includes('No mail yet') && /\d\d:\d\d/.test(f.split('\n')[3] ?? ''));
  await app.screen.press(KEY.ENTER);
  return { address, frame: await app.screen.waitFor('Body row 1') };
}

describe('long headers in the viewer', () => {
  it('a 200-character subject is shown whole at 80x24, wrapped under the value column', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const subject = `${'Your order has shipped and is on its way to you '.repeat(4).slice(0, 188)} Quokkafinale`;
    expect(subject.length).toBe(201);
    const { address, frame } = await openWith(h, { subject });
    expect(frame).toContain('Quokkafinale');
    const block = headerBlock(frame, 'Subject');
    expect(block.length).toBeGreaterThan(1);
    expect(block.length).toBeLessThanOrEqual(3);
    expect(
      block
        .join(' ')
        .replace(/^Subject:\s+/, '')
        .replace(/\s+/g, ' '),
    ).toBe(subject.replace(/\s+/g, ' '));
    expect(frame).not.toContain('…');
    expect(frame).toMatch(/^Date: +\d{4}-/m);
    expectFits(frame, address, 80, 24);
    // The body takes what the headers leave: scrolling to the end still shows the last row, footer in place.
    await h.screen.press('G');
    expectFits(await h.screen.waitFor('Body row 40'), address, 80, 24);
  });

  it('a 1,000-character subject stays within 3 lines, cut with an ellipsis; the frame keeps its size', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const subject = Array.from({ length: 200 }, (_, i) => `w${String(i).padStart(3, '0')}`).join(' ');
    expect(subject.length).toBeGreaterThanOrEqual(999);
    const { address, frame } = await openWith(h, { subject });
    const block = headerBlock(frame, 'Subject');
    expect(block).toHaveLength(3);
    expect(block[2]!.trimEnd()).toMatch(/…$/);
    expect(frame).not.toContain('w199');
    expect(frame).toMatch(/^Date: /m);
    expect(frame).toMatch(/^── lines 1-\d+ of 40/m);
    expectFits(frame, address, 80, 24);
    // H hides From, To and Date; the subject keeps its three lines.
    await h.screen.press('H');
    const bare = await h.screen.waitForGone('From:');
    expect(headerBlock(bare, 'Subject')).toHaveLength(3);
    expectFits(bare, address, 80, 24);
  });

  it('a long sender and several recipients wrap too, at 80 and at 120 columns', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const name = `${'Customer Happiness Department of '.repeat(2)}Wombatcorp`;
    const others = Array.from({ length: 4 }, (_, i) => `colleague-${i + 1}@example.org`);
    const raw = (to: string) =>
      [
        `From: "${name}" <happy@example.org>`,
        `To: ${[to, ...others].join(', ')}`,
        'Subject: Team update',
        'Date: Mon, 02 Mar 2026 10:00:00 +0000',
        'Message-ID: <team-update@example.org>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        BODY,
        '',
      ].join('\r\n');
    const { address, frame } = await openWith(h, { raw });
    expect(frame).toContain('Wombatcorp');
    expect(frame).toContain('<happy@example.org>');
    const to = headerBlock(frame, 'To').join(' ');
    expect(to).toContain('colleague-4@example.org');
    expect(headerBlock(frame, 'From').length).toBeLessThanOrEqual(3);
    expect(headerBlock(frame, 'To').length).toBeLessThanOrEqual(3);
    expectFits(frame, address, 80, 24);
    h.screen.resize(120, 40);
    const wide = await h.screen.waitFor((f) => headerBlock(f, 'From').length === 1);
    expect(wide).toContain('Wombatcorp <happy@example.org>');
    expectFits(wide, address, 120, 40);
  });

  it('on a short terminal the headers give lines back so the body keeps room', async () => {
    h = await startApp({ columns: 80, rows: 24 });
    const subject = `${'A rather long subject line that needs wrapping '.repeat(4)}Numbatend`;
    const { address } = await openWith(h, { subject });
    h.screen.resize(60, 14);
    let frame = await h.screen.waitFor((f) => f.split('\n').length <= 14 && headerBlock(f, 'Subject').length === 2);
    expect(headerBlock(frame, 'Subject')[1]).toMatch(/…\s*$/);
    expect(frame).toMatch(/lines 1-3 of 40/);
    expectFits(frame, address, 60, 14);
    h.screen.resize(60, 12);
    frame = await h.screen.waitFor((f) => f.split('\n').length <= 12 && headerBlock(f, 'Subject').length === 1);
    expect(headerBlock(frame, 'Subject')[0]).toMatch(/…\s*$/);
    expect(frame).toContain('Body row 1');
    expectFits(frame, address, 60, 12);
  });
});
