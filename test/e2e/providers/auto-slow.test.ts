/**
 * Issue 36, point 8, the built program in a real pseudo-terminal: with "provider": "auto", mail.tm's
 * fake trickles its answers a byte at a time and TempMail.lol's takes its requests and never answers.
 * The app names the provider it tries, passes each within its try (AUTO_TRY_MS, 8 s), saying why, ends
 * the requests it gave up on, and makes the address on Guerrilla Mail. Before, each slow provider held
 * the picker ~25-30 s.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AUTO_TRY_MS } from '../../../src/client/auto-try';
import { cleanupAfterEach } from '../../harness/cleanup';
import { waitFor } from '../../harness/wait';
import { startGuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { startTempmaillolFake } from '../../providers/tempmaillol-fake';
import { addressOnScreen, isInbox, neutralEnv } from '../flow';
import { KEYS, spawnApp } from '../pty-harness';

const cleanup = cleanupAfterEach();
// A try's deadline and room for a loaded machine to draw the frame that says so.
const TRY_WAIT_MS = AUTO_TRY_MS + 7_000;
const flat = (screen: string) => screen.replace(/\s+/g, ' ');

it('auto at 80x24 passes a trickling and a hanging provider within a try each, naming each, and makes the address on the third', async () => {
  const mailtm = await startMailtmFake();
  cleanup.after(() => mailtm.close());
  const lol = await startTempmaillolFake();
  cleanup.after(() => lol.close());
  const guerrilla = await startGuerrillaFake();
  cleanup.after(() => guerrilla.close());
  mailtm.server.stall('trickle');
  lol.server.stall('hang');
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-auto-slow-'));
  cleanup.after(() => rm(home, { recursive: true, force: true }));
  await mkdir(join(home, 'config'), { mode: 0o700 });
  const config = {
    provider: 'auto',
    providerOrder: ['mailtm', 'tempmaillol', 'guerrilla'],
    providers: {
      mailtm: { baseUrl: mailtm.baseUrl },
      tempmaillol: { baseUrl: lol.baseUrl },
      guerrilla: { baseUrl: guerrilla.baseUrl },
    },
  };
  await writeFile(join(home, 'config', 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const app = spawnApp({ args: [], env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 80, rows: 24 });
  cleanup.after(() => app.kill());

  await app.waitForScreen(/Trying mail\.tm…/);
  let screen = await app.waitForScreen((s) => flat(s).includes('Trying TempMail.lol instead'), TRY_WAIT_MS);
  expect(flat(screen)).toContain('mail.tm: did not answer in 8 s. Trying TempMail.lol instead');
  await waitFor(() => mailtm.server.requests.length > 0 && mailtm.server.stalled() === 0, {
    message: 'mail.tm requests still open',
  });

  await app.waitForScreen(/Random address \(TempMail\.lol picks the domain\)/);
  screen = await app.press(KEYS.ENTER, (s) => flat(s).includes('Trying Guerrilla Mail instead'), TRY_WAIT_MS);
  expect(flat(screen)).toContain('TempMail.lol: did not answer in 8 s. Trying Guerrilla Mail instead');
  await waitFor(() => lol.server.requests.length > 0 && lol.server.stalled() === 0, {
    message: 'TempMail.lol requests still open',
  });

  await app.waitForScreen(/Random address on guerrillamail\.com/);
  await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s), 15_000);
  expect(addressOnScreen(app)).toMatch(/@guerrillamail\.com$/);
  await app.press('q');
  expect(await app.exited()).toBe(0);
}, 60_000);
