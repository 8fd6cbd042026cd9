/**
 * `a` on an attachment whose file name is already in the download directory, against the real service:
 * it asks on the status line; `o` replaces the file atomically (a new file renamed over it, 0600), `k`
 * keeps both (today's numbering), any other key leaves the file as it was. A symbolic link there is
 * never followed.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { joined, KEY } from '../ui';

let h: AppHarness | undefined;
const cleanup: (() => void)[] = [];
closeAppsAfterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

const PDFISH = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255])]);

/** A temp folder holding `Downloads` (made here, with what `files` puts in it); returns both paths. */
function folders(files: (downloads: string, root: string) => void = () => {}): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'tui-over-'));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'Downloads');
  mkdirSync(dir);
  files(dir, root);
  return { root, dir };
}

/** Starts the app saving into `dir` and opens a message with one attachment, report.pdf. */
async function openReport(dir: string, columns = 130): Promise<AppHarness> {
  const app = await startApp({
    columns,
    props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } },
  });
  const address = await pickFirstDomain(app);
  await sendMail(app.svc, {
    to: address,
    subject: 'Your report',
    text: 'The report is attached.',
    attachments: [{ filename: 'report.pdf', content: PDFISH, contentType: 'application/pdf' }],
  });
  await app.screen.press('r');
  await app.screen.waitFor('Your report');
  await app.screen.press(KEY.ENTER);
  await app.screen.waitFor('The report is attached.');
  return app;
}

describe('saving over a file that exists', () => {
  it('asks; another key cancels (file intact), o replaces it atomically, k keeps both', async () => {
    const { dir } = folders((d) => writeFileSync(join(d, 'report.pdf'), 'the old report'));
    const file = join(dir, 'report.pdf');
    const before = statSync(file);
    h = await openReport(dir);

    await h.screen.press('a');
    const asked = await h.screen.waitFor(
      `report.pdf exists in ${dir}: o overwrite · k keep both (report (1).pdf) · other key cancels`,
    );
    expect(asked).toContain('o overwrite  k keep both  any other key cancel');
    // The viewer's keys are off while it asks: j neither scrolls nor answers for it, it cancels.
    await h.screen.press('j');
    await h.screen.waitFor('Cancelled: report.pdf left as it was');
    expect(readFileSync(file, 'utf8')).toBe('the old report');
    expect(readdirSync(dir)).toEqual(['report.pdf']);

    await h.screen.press('a');
    await h.screen.waitFor('report.pdf exists in');
    await h.screen.press('o');
    await h.screen.waitFor(`Replaced ${file} (18 B)`);
    expect(readFileSync(file).equals(PDFISH)).toBe(true);
    const after = statSync(file);
    expect(after.mode & 0o777).toBe(0o600);
    // A new file renamed over the old one (not rewritten in place), and no temp file left beside it.
    expect(after.ino).not.toBe(before.ino);
    expect(readdirSync(dir)).toEqual(['report.pdf']);

    writeFileSync(file, 'edited again');
    await h.screen.press('a');
    await h.screen.waitFor('k keep both (report (1).pdf)');
    await h.screen.press('k');
    await h.screen.waitFor(`Saved to ${join(dir, 'report (1).pdf')} (18 B)`);
    expect(readFileSync(file, 'utf8')).toBe('edited again');
    expect(readFileSync(join(dir, 'report (1).pdf')).equals(PDFISH)).toBe(true);
    expect(h.tokenNeverShown()).toBe(true);
  });

  it('a symbolic link at the name is replaced, never followed: its target stays as it was', async () => {
    const { root, dir } = folders((d, r) => {
      writeFileSync(join(r, 'precious.txt'), 'not yours');
      symlinkSync(join(r, 'precious.txt'), join(d, 'report.pdf'));
    });
    const file = join(dir, 'report.pdf');
    h = await openReport(dir);
    await h.screen.press('a');
    await h.screen.waitFor('report.pdf exists in');
    await h.screen.press('o');
    await h.screen.waitFor(`Replaced ${file} (18 B)`);
    expect(readFileSync(join(root, 'precious.txt'), 'utf8')).toBe('not yours');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file).equals(PDFISH)).toBe(true);
    expect(readdirSync(root).sort()).toEqual(['Downloads', 'precious.txt']);
  });

  it('a folder at the name is not replaced: the reason, and no temp file left', async () => {
    const { dir } = folders((d) => mkdirSync(join(d, 'report.pdf')));
    h = await openReport(dir);
    await h.screen.press('a');
    await h.screen.waitFor('report.pdf exists in');
    await h.screen.press('o');
    await h.screen.waitFor(`report.pdf not saved: it is a directory (in ${dir})`);
    expect(lstatSync(join(dir, 'report.pdf')).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual(['report.pdf']);
  });

  it('at 80 columns the question wraps whole, the answer keys kept; a folder under home shows as ~', async () => {
    const { root, dir } = folders((d) => writeFileSync(join(d, 'report.pdf'), 'old'));
    const home = process.env.HOME;
    process.env.HOME = root;
    cleanup.push(() => {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    });
    h = await openReport(dir, 80);
    await h.screen.press('a');
    const frame = await h.screen.waitFor((f) =>
      joined(f).includes(
        'report.pdf exists in ~/Downloads: o overwrite · k keep both (report (1).pdf) · other key cancels',
      ),
    );
    for (const line of frame.split('\n')) expect(textWidth(line)).toBeLessThanOrEqual(80);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Cancelled: report.pdf left as it was');
    expect(readFileSync(join(dir, 'report.pdf'), 'utf8')).toBe('old');
  });
});
