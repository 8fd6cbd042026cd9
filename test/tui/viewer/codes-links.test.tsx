/**
 * Codes, links and the clipboard in the app, against the real service: the detected code at the top of
 * the viewer and as a badge in the inbox (bodies prefetched in the background, one request at a time),
 * `y` copying it, `o` opening a link (or showing and copying it where no browser can open), and the
 * OSC 52 sequence reaching the terminal through Ink's stdout.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInBrowser } from '../../../src/platform/browser';
import { copyToClipboard } from '../../../src/platform/clipboard';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import {
  countingReads,
  pickFirstDomain,
  startApp,
  type AppHarness,
  type ReadStats,
  closeAppsAfterEach,
} from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
const dirs: string[] = [];
closeAppsAfterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CODE_MAIL = {
  from: 'Acme Accounts <no-reply@acme.example>',
  subject: 'Your Acme verification code',
  text: 'Hi,\n\nYour verification code is 482913. It expires in 10 minutes.\nOrder 55501234 ships in 2026. Call +1 415 555 0199.\n',
};
const LINK_HTML = `<p>Welcome! Please confirm your email address:</p>
<p><a href="https://acme.example/verify?t=Zx81kQ">Verify my email</a></p>
<p><a href="https://acme.example/unsubscribe">Unsubscribe</a></p>`;

describe('codes and links', () => {
  it('the viewer shows the detected code at the top; y copies it and says so', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { ...CODE_MAIL, to: address });
    await h.screen.press('r');
    await h.screen.waitFor(CODE_MAIL.subject);
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor(/^Code: +482913 {3}y copies/m);
    // Decoys (order number, year, phone) are not taken for the code.
    expect(frame).not.toMatch(/^Code: +(55501234|2026)/m);
    await h.screen.press('y');
    await h.screen.waitFor('Copied code 482913 (test clipboard)');
    expect(h.copied).toEqual(['482913']);
  });

  it('the inbox shows codes without opening: the rows on screen are fetched, one request at a time, each once', async () => {
    const stats: ReadStats = { reads: [], inFlight: 0, maxInFlight: 0 };
    h = await startApp({ wrapApi: countingReads(stats) });
    const address = await pickFirstDomain(h);
    // Seven messages, all on screen. Each code is unique so rows can be told apart.
    for (let i = 1; i <= 7; i += 1) {
      await sendMail(h.svc, { to: address, subject: `Sign-in ${i}`, text: `Your login code is ${700000 + i}.` });
    }
    await h.screen.press('r');
    let frame = await h.screen.waitFor('7 messages');
    frame = await h.screen.waitFor(
      (f) => [1, 2, 3, 4, 5, 6, 7].every((i) => f.includes(`[code ${700000 + i}]`)),
      15_000,
    );
    expect(frame).toMatch(/Sign-in 7 +\[code 700007\]/);
    // The newest unread first, then the rest of the screen.
    expect(stats.reads.slice(0, 5)).toEqual([7, 6, 5, 4, 3]);
    expect([...stats.reads].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(stats.maxInFlight).toBe(1);
    // Opening a prefetched one, or the oldest, asks for it no more.
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/^Code: +700007/m);
    await h.screen.press(KEY.ESC);
    await h.screen.press('G', KEY.ENTER);
    await h.screen.waitFor(/^Code: +700001/m);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('[code 700001]');
    expect(stats.reads).toHaveLength(7);
    expect(stats.maxInFlight).toBe(1);
  });

  it('a code in the subject shows on a row whose body has not arrived', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reads: number[] = [];
    h = await startApp({
      wrapApi: (api) => ({
        ...api,
        // The body of the oldest (the one with the code in its subject) does not come until the end.
        readMail: async (token, id) => {
          reads.push(Number(id));
          if (Number(id) === 1) await held;
          return api.readMail(token, id);
        },
      }),
    });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Your Acme code is 615243', text: 'Use it within 10 minutes.' });
    for (let i = 1; i <= 6; i += 1)
      await sendMail(h.svc, { to: address, subject: `Newsletter ${i}`, text: 'Nothing to see.' });
    await h.screen.press('r');
    await h.screen.waitFor('7 messages');
    const frame = await h.screen.waitFor(/Your Acme code is 615243 +\[code 615243\]/);
    expect(frame).toContain('Newsletter 6');
    release();
  });

  it('a message deleted while its background fetch travels does not stall the prefetch of the others', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reads: number[] = [];
    let first: number | undefined;
    h = await startApp({
      wrapApi: (api) => ({
        ...api,
        // The first background fetch is held until the test lets it go; the real request runs after.
        readMail: async (token, id) => {
          reads.push(Number(id));
          first ??= Number(id);
          if (Number(id) === first) await held;
          return api.readMail(token, id);
        },
      }),
    });
    const address = await pickFirstDomain(h);
    for (let i = 1; i <= 3; i += 1) {
      await sendMail(h.svc, { to: address, subject: `Code mail ${i}`, text: `Your login code is ${810000 + i}.` });
    }
    await h.screen.press('r');
    await h.screen.waitFor('3 messages');
    await waitFor(() => reads.length === 1, { message: 'the first background fetch' });
    // The newest is selected and its fetch is held: delete it, then let the fetch finish.
    await h.screen.press('d', 'y');
    await h.screen.waitFor('Deleted "Code mail 3"');
    release();
    const frame = await h.screen.waitFor((f) => f.includes('[code 810002]') && f.includes('[code 810001]'), 15_000);
    const rows = frame.split('\n').filter((line) => /Code mail \d/.test(line) && !line.includes('Deleted "'));
    expect(rows.map((row) => /Code mail (\d)/.exec(row)![1])).toEqual(['2', '1']);
    expect(reads).toEqual([3, 2, 1]);
  });

  it('a detected link shows at the top; o with no display shows the link whole and copies it', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Confirm your email', html: LINK_HTML });
    await h.screen.press('r');
    await h.screen.waitFor('Confirm your email');
    await h.screen.press(KEY.ENTER);
    let frame = await h.screen.waitFor(/^Link: +\[1\] https:\/\/acme\.example\/verify\?t=Zx81kQ$/m);
    expect(frame).not.toMatch(/^Code:/m);
    await h.screen.press('o');
    frame = await h.screen.waitFor('Link 1 not opened (no display), shown above and copied (test clipboard)');
    expect(h.copied).toEqual(['https://acme.example/verify?t=Zx81kQ']);
    // y copies the detected link too when there is no code.
    await h.screen.press('y');
    await h.screen.waitFor('Copied link 1 (test clipboard)');
    expect(h.copied).toHaveLength(2);
  });

  it('once o picked the link, the code says c copies it, since y copies the link', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, {
      to: address,
      subject: 'Code and link',
      html: `<p>Your verification code is 482913.</p>${LINK_HTML}`,
    });
    await h.screen.press('r');
    await h.screen.waitFor('Code and link');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/^Code: +482913 {3}y copies/m);
    await h.screen.press('o');
    const frame = await h.screen.waitFor('Link 1 not opened (no display)');
    expect(frame).toMatch(/^Code: +482913 {3}c copies$/m);
    await h.screen.press('y');
    await h.screen.waitFor('Copied link 1 (test clipboard)');
    await h.screen.press('c');
    await h.screen.waitFor('Copied code 482913 (test clipboard)');
  });

  it('a long picked link is shown whole, wrapped under its label', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    const long = `https://acme.example/track/${'a1b2c3d4e5'.repeat(20)}/end`;
    await sendMail(h.svc, { to: address, subject: 'Long link', html: `<p><a href="${long}">here</a></p>` });
    await h.screen.press('r');
    await h.screen.waitFor('Long link');
    await h.screen.press(KEY.ENTER);
    // One link, counted in the singular on the position line.
    await h.screen.waitFor(/lines 1-\d+ of \d+ · 1 link /);
    await h.screen.press('1');
    const frame = await h.screen.waitFor('Link 1 picked');
    const lines = frame.split('\n');
    const start = lines.findIndex((l) => l.startsWith('Link:'));
    const shown = lines
      .slice(start, start + 4)
      .map((l) => l.slice(10).trimEnd())
      .join('');
    expect(shown).toContain(`[1] ${long}`);
  });

  it('o with a display hands the URL to the opener as one argument', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tui-open-'));
    dirs.push(dir);
    const out = join(dir, 'args.json');
    writeFileSync(
      join(dir, 'xdg-open'),
      `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    chmodSync(join(dir, 'xdg-open'), 0o755);
    h = await startApp({
      props: { openLink: (url) => openInBrowser(url, { env: { PATH: dir, DISPLAY: ':0' }, platform: 'linux' }) },
    });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Confirm your email', html: LINK_HTML });
    await h.screen.press('r');
    await h.screen.waitFor('Confirm your email');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/^Link: +\[1\]/m);
    await h.screen.press('2', 'o');
    await h.screen.waitFor('Opened link 2 in a browser (xdg-open)');
    const args = await waitFor(() => {
      try {
        return JSON.parse(readFileSync(out, 'utf8')) as string[];
      } catch {
        return null;
      }
    });
    expect(args).toEqual(['https://acme.example/unsubscribe']);
    expect(h.copied).toEqual([]);
  });

  it('copying writes OSC 52 through Ink, never inside a frame, with the right base64; the whole frame follows', async () => {
    h = await startApp({
      props: { copy: async (text, write) => (await copyToClipboard(text, { write, env: { PATH: '' } })).message },
    });
    const address = await pickFirstDomain(h);
    const before = h.screen.frames.length;
    await h.screen.press('c');
    await h.screen.waitFor('Sent address to the terminal via OSC 52 (no local clipboard tool)');
    const osc = `\x1b]52;c;${Buffer.from(address).toString('base64')}\x07`;
    const frames = h.screen.frames.slice(before);
    const at = frames.findIndex((f) => f.includes(osc));
    // Ink's own write (useStdout): the sequence comes first, never inside a frame's lines, and Ink 8
    // restores its whole frame (header to footer) after it, in the same synchronized update. The pty
    // test (test/e2e/switch-copy.test.ts) checks the real terminal's screen.
    expect(at).toBeGreaterThanOrEqual(0);
    expect(frames[at]!.startsWith(osc)).toBe(true);
    expect(frames.filter((f) => f.includes('\x1b]52'))).toHaveLength(1);
    const restored = frames[at]!.slice(osc.length);
    expect(restored).toContain(address);
    expect(restored).toMatch(/q quit\s*$/);
  });
});
