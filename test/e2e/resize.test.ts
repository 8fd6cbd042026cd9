/**
 * The app at 80x24 and through resizes (to 120x40 and back) in a real pseudo-terminal: the header with
 * the address stays on the first row, the footer at the bottom, nothing is drawn twice, and the viewer
 * re-wraps the body to the new width.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { headerRow, isInbox, isViewer, pickFirstDomain, rowsWith, startE2E, type E2E } from './flow';
import { KEYS, type PtyApp } from './pty-harness';

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

const SUBJECT = 'Resize check';
const PARAGRAPH =
  'This paragraph is long enough to wrap several times at eighty columns and fewer times at one hundred ' +
  'and twenty, so the viewer can show that it re-wraps the body to the width of the terminal it is in, ' +
  'which is what a user who resizes the window expects to see happen at once.';

/** Problems with the layout on screen at `cols` x `rows`; empty when it is sane. */
function layoutProblems(
  app: PtyApp,
  address: string,
  cols: number,
  rows: number,
  screen: 'inbox' | 'viewer',
): string[] {
  const problems: string[] = [];
  const lines = app.screen();
  if (lines.length !== rows) problems.push(`terminal has ${lines.length} rows`);
  const header = headerRow(app);
  if (!header.startsWith(address)) problems.push(`first row is not the address: "${header}"`);
  if (!/expires in \d/.test(header)) problems.push('no countdown on the first row');
  // Right-aligned countdown: it ends near the right edge of the current width.
  if (header.trimEnd().length < cols - 2)
    problems.push(`header does not span the width (${header.trimEnd().length} of ${cols})`);
  const footer = rowsWith(app, screen === 'inbox' ? 'q quit' : 'Esc back');
  if (footer.length !== 1) problems.push(`footer drawn ${footer.length} times`);
  else if (footer[0]! < rows - 2) problems.push(`footer on row ${footer[0]} of ${rows}`);
  if (rowsWith(app, 'expires in').length !== 1) problems.push('header drawn more than once');
  if (screen === 'inbox' && rowsWith(app, SUBJECT).length !== 1) problems.push('message row missing or doubled');
  if (lines.some((line) => line.length > cols)) problems.push('a row is wider than the terminal');
  return problems;
}

async function expectLayout(app: PtyApp, address: string, cols: number, rows: number, screen: 'inbox' | 'viewer') {
  const on = screen === 'inbox' ? isInbox : isViewer;
  await app
    .waitForScreen((s) => on(s) && layoutProblems(app, address, cols, rows, screen).length === 0)
    .catch((error: unknown) => {
      const problems = layoutProblems(app, address, cols, rows, screen).join('; ');
      throw new Error(`layout at ${cols}x${rows} (${screen}): ${problems}\n${(error as Error).message}`);
    });
}

/** The longest body line of the viewer (rows below the header separator, above the footer). */
function longestBodyLine(app: PtyApp): number {
  const lines = app.screen();
  const start = lines.findIndex((l) => l.startsWith('──'));
  const body = lines
    .slice(start + 1)
    .filter((l) => l.includes('wrap') || l.includes('width') || l.includes('paragraph') || l.includes('resizes'));
  return Math.max(0, ...body.map((l) => l.trimEnd().length));
}

describe('the app at 80x24 and through resizes', () => {
  it('keeps header, list and footer in place at 80x24, 120x40 and back, and re-wraps the viewer', async () => {
    e2e = await startE2E({ cols: 80, rows: 24, args: ['--poll-interval', '1'] });
    const { app, serve } = e2e;
    const address = await pickFirstDomain(app);
    await sendMail(serve, { to: address, subject: SUBJECT, html: `<p>${PARAGRAPH}</p>` });
    await app.waitForScreen((s) => isInbox(s) && s.includes(SUBJECT));
    await expectLayout(app, address, 80, 24, 'inbox');

    app.resize(120, 40);
    await expectLayout(app, address, 120, 40, 'inbox');

    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('re-wraps'));
    await expectLayout(app, address, 120, 40, 'viewer');
    expect(longestBodyLine(app)).toBeGreaterThan(80);

    app.resize(80, 24);
    await expectLayout(app, address, 80, 24, 'viewer');
    await app.waitForScreen(() => longestBodyLine(app) > 0 && longestBodyLine(app) <= 80);

    await app.press('q', isInbox);
    await expectLayout(app, address, 80, 24, 'inbox');

    // A quick burst of sizes, as a window drag sends, settles on the last one.
    for (const [c, r] of [
      [100, 30],
      [90, 26],
      [130, 45],
      [80, 24],
    ] as const)
      app.resize(c, r);
    await expectLayout(app, address, 80, 24, 'inbox');

    await app.press('q');
    expect(await app.exited()).toBe(0);
  });

  it('a subject and sender full of soft hyphens (&shy;) and Hangul fillers keep the layout', async () => {
    e2e = await startE2E({ cols: 80, rows: 24, args: ['--no-bell'] });
    const { app, serve } = e2e;
    const address = await pickFirstDomain(app);
    const shy = '\u00ad';
    // Each of these a terminal draws one column (or two) wide while Ink, left to itself, counts none.
    const subject = `${SUBJECT} con${shy}firm your ac${shy}count at Ex${shy}am${shy}ple Shop to${shy}day, it is quite im${shy}por${shy}tant\u3164\u3164\u3164`;
    await sendMail(serve, {
      from: `"Ex${shy}am${shy}ple Shop\u115f" <shop@example.org>`,
      to: address,
      subject,
      html: `<p>Con&shy;firm&shy;ation&shy; needed: ${'ac&shy;count '.repeat(30)}</p>`,
    });
    await app.press('r', (s) => isInbox(s) && s.includes(SUBJECT));
    await expectLayout(app, address, 80, 24, 'inbox');
    expect(app.screenText()).toContain('Example Shop');
    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('Confirmation needed'));
    await expectLayout(app, address, 80, 24, 'viewer');
    expect(app.screenText()).toMatch(/^Subject: +Resize check confirm your account at Example Shop/m);
  });
});
