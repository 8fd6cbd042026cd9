/**
 * Code marks are consistent (issue 37.5): with 300 similar sign-up mails, every row on screen shows its
 * `[code …]` once the list has rested, whichever rows happened to be fetched; the rows scrolled to are
 * fetched too, one body at a time and never one twice; and the marks stay when the user leaves the
 * address (`n`, `y`, a new one) and comes back (`s`), though that is a new session view with an empty
 * body cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { sendMail } from '../../harness/service';
import { countingReads, startApp, type AppHarness, type ReadStats, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
const dirs: string[] = [];
closeAppsAfterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const N = 300;
const SUBJECT = 'Finish signing up';
const codeOf = (i: number) => String(100000 + i);

/** The list rows of a frame (a row shows the subject). */
const rowsOf = (frame: string) => frame.split('\n').filter((line) => line.includes(SUBJECT));
/** True when the frame lists rows and every one of them shows its code. */
const allMarked = (frame: string) => {
  const rows = rowsOf(frame);
  return rows.length >= 10 && rows.every((row) => /\[code 1\d{5}\]/.test(row));
};

describe('code marks', () => {
  it('every row on screen gets its mark once the list rests, scrolled to or come back to, each body asked for once', async () => {
    const stats: ReadStats = { reads: [], inFlight: 0, maxInFlight: 0 };
    const dir = mkdtempSync(join(tmpdir(), 'tui-marks-'));
    dirs.push(dir);
    const store = openSavedSessions({ dir });
    h = await startApp({ wrapApi: countingReads(stats), props: { saved: { store, serviceKey: 'marks-test' } } });
    const app = h;
    await app.screen.waitFor('Random address on');
    await app.screen.press('1');
    const address = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/.exec(
      (await app.screen.waitFor(/expires in \d/)).split('\n')[0] ?? '',
    )![1]!;
    // 300 mails alike but for their code, sent ten at a time.
    for (let i = 0; i < N; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          sendMail(app.svc, {
            to: address,
            subject: SUBJECT,
            text: `Hi,\n\nyour code is ${codeOf(i + k + 1)}\n\nThanks`,
          }),
        ),
      );
    }
    await app.screen.press('r');
    await app.screen.waitFor(`${N} messages`);
    // The first screen: every row, not only the five newest unread.
    let frame = await app.screen.waitFor(allMarked, 20_000);
    expect(rowsOf(frame)[0]).toContain(`[code ${codeOf(N)}]`);
    // The last screen: fetched once the list rests there.
    await app.screen.press('G');
    frame = await app.screen.waitFor((f) => allMarked(f) && f.includes(`[code ${codeOf(1)}]`), 20_000);
    expect(new Set(stats.reads).size).toBe(stats.reads.length);
    expect(stats.maxInFlight).toBe(1);
    // Only what was shown (two screens) and the newest unread: not the 300.
    expect(stats.reads.length).toBeLessThan(60);
    const reads = stats.reads.length;
    // Back to the top: the marks are there, nothing is fetched again.
    await app.screen.press('g');
    frame = await app.screen.waitFor((f) => allMarked(f) && f.includes(`[code ${codeOf(N)}]`));
    // Another address, then back to this one: a new view and body cache, the same marks at once.
    await app.screen.press('n', 'y');
    await app.screen.waitFor('Random address on');
    await app.screen.press('2');
    await app.screen.waitFor('No mail yet for');
    await app.screen.press('s');
    await app.screen.waitFor('saved addresses (2)');
    await app.screen.press('j', KEY.ENTER);
    await app.screen.waitFor(`${N} messages`);
    frame = await app.screen.waitFor(allMarked);
    expect(rowsOf(frame)[0]).toContain(`[code ${codeOf(N)}]`);
    expect(stats.reads.length).toBe(reads);
    expect(new Set(stats.reads).size).toBe(stats.reads.length);
  }, 60_000);
});
