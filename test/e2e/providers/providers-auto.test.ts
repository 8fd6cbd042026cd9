/**
 * Issue 24, points 5 and 7, the built program in a real pseudo-terminal at 80x24: with "provider": "auto"
 * and the first providers of the order failing (mail.tm refusing connections, TempMail.lol asking a
 * captcha), the app says which one it falls back from and why and makes the address on the first that
 * answers (Guerrilla Mail), which the address remembers; `p` moves along the order and names where new
 * addresses go; no line of the picker or the inbox is cut (no "…"), the footer keys whole.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { startGuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { startTempmaillolFake } from '../../providers/tempmaillol-fake';
import { addressOnScreen, isInbox, neutralEnv } from '../flow';
import { KEYS, spawnApp } from '../pty-harness';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

async function refusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

// The picker's and the inbox's lines at 80 columns: said whole, or in a shorter wording, never cut.
// A line cut to the width ends in "…" at its last columns ("Loading the inbox…" is not cut).
const cutLines = (screen: string) =>
  screen.split('\n').filter((line) => line.trimEnd().endsWith('…') && line.trimEnd().length >= 78);

it('auto at 80x24: falls back past a provider that is down and one that wants a captcha, saying why, and p names where it goes', async () => {
  const guerrilla = await startGuerrillaFake();
  cleanup.after(() => guerrilla.close());
  const lol = await startTempmaillolFake({ captcha: true });
  cleanup.after(() => lol.close());
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-auto-'));
  cleanup.after(() => rm(home, { recursive: true, force: true }));
  await mkdir(join(home, 'config'), { mode: 0o700 });
  const config = {
    provider: 'auto',
    providers: {
      mailtm: { baseUrl: await refusedUrl() },
      tempmaillol: { baseUrl: lol.baseUrl },
      guerrilla: { baseUrl: guerrilla.baseUrl },
      tempmail: { baseUrl: await refusedUrl() },
    },
  };
  await writeFile(join(home, 'config', 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const app = spawnApp({ args: [], env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 80, rows: 24 });
  cleanup.after(() => app.kill());

  // mail.tm is down: the app moves on to TempMail.lol and says why.
  let screen = await app.waitForScreen(/Random address \(TempMail\.lol picks the domain\)/, 15_000);
  expect(screen).toContain('mail.tm: The service is unreachable (connection refused). Trying TempMail.lol');
  expect(screen).toMatch(/TempMail\.lol: .* · p: Guerrilla Mail/);
  expect(cutLines(screen)).toEqual([]);
  expect(screen).toContain('j/k move  Enter choose  r refresh  p provider  ? help  q quit');

  // TempMail.lol wants a captcha: on to Guerrilla Mail, saying so.
  screen = await app.press(KEYS.ENTER, /Random address on guerrillamail\.com/);
  expect(screen.replace(/\s+/g, ' ')).toContain('TempMail.lol: TempMail.lol wants a captcha solved from this network');
  expect(screen.replace(/\s+/g, ' ')).toContain('Trying Guerrilla Mail instead');
  expect(screen).toMatch(/Guerrilla Mail: .*60 min.* · p: tempmail|Guerrilla Mail: .* · p: /);
  expect(cutLines(screen)).toEqual([]);

  // p names where new addresses now go, along the same order.
  // Moved by hand, the app stays where it is sent, even on a provider that is down.
  screen = await app.press('p', /New addresses now go to this machine/);
  await app.waitForScreen(/Could not load the domains/, 15_000);
  // After the order, auto's last resort: the app's local service (issue 37.8, auto-offline.test.ts).
  screen = await app.press('p', /New addresses now go to local service/);
  await app.waitForScreen(/Random address on tempmail\.test/, 15_000);
  screen = await app.press('p', /New addresses now go to mail\.tm/);
  screen = await app.press('p', /New addresses now go to TempMail\.lol/);
  screen = await app.press('p', /New addresses now go to Guerrilla Mail/);
  screen = await app.waitForScreen(/Random address on guerrillamail\.com/);

  screen = await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in (59|60) min/.test(s));
  const address = addressOnScreen(app);
  expect(address).toMatch(/@guerrillamail\.com$/);
  expect(cutLines(screen)).toEqual([]);
  // n asks in the provider's own terms, whole at 80 columns.
  screen = await app.press('n', /Leave .* for a new address\?/);
  expect(screen.replace(/\s+/g, ' ')).toContain('It keeps working until it expires.');
  await app.press('q');
  await app.press('q');
  expect(await app.exited()).toBe(0);
  const saved = openSavedSessions({ env: { TEMPMAIL_TUI_HOME: home } }).listLive();
  expect(saved.map((s) => [s.email, s.provider, s.baseUrl])).toEqual([[address, 'guerrilla', guerrilla.baseUrl]]);
}, 60_000);

it('mail.tm at 80x24: the hint offers the next provider, not mail.tm again; n says mail.tm accounts do not expire', async () => {
  const fake = await startMailtmFake();
  cleanup.after(() => fake.close());
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-mailtm80-'));
  cleanup.after(() => rm(home, { recursive: true, force: true }));
  // Another host of mail.tm's API (as mail.gw is): before, the hint said "p: mail.tm" here.
  const app = spawnApp({
    args: ['--provider', 'mailtm', '--base-url', fake.baseUrl],
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
    cols: 80,
    rows: 24,
  });
  cleanup.after(() => app.kill());
  let screen = await app.waitForScreen(/Random address on mailtm\.test/);
  expect(screen).toMatch(/^mail\.tm: .*no expiry · p: TempMail\.lol *$/m);
  expect(cutLines(screen)).toEqual([]);
  screen = await app.press(KEYS.ENTER, (s) => isInbox(s) && /no expiry/.test(s));
  expect(cutLines(screen)).toEqual([]);
  screen = await app.press('n', /Leave .* for a new address\?/);
  expect(screen.replace(/\s+/g, ' ')).toContain(
    'It keeps working: mail.tm accounts do not expire (x deletes one). y = yes',
  );
  expect(screen.replace(/\s+/g, ' ')).not.toContain('until it expires');
  await app.press('x');
  await app.press('q');
  expect(await app.exited()).toBe(0);
}, 60_000);
