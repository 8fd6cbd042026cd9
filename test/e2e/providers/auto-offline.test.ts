/**
 * Issue 37.8, the built program in a real pseudo-terminal: offline, with "provider": "auto", every
 * provider of the order fails (each pointed at a port that refuses connections), and the app ends on
 * its local service, the one it runs with nothing configured, saying so; the address is made there and
 * saved as local mode saves it. It used to stop at the last public provider (mailtemp.us) with nothing
 * to offer.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { cleanupAfterEach } from '../../harness/cleanup';
import { closedPort } from '../../harness/ports';
import { addressOnScreen, isInbox, neutralEnv } from '../flow';
import { KEYS, spawnApp } from '../pty-harness';

const cleanup = cleanupAfterEach();
const refused = async () => `http://127.0.0.1:${await closedPort()}/`;

it('auto with every provider down falls back to the local service, says so, and makes the address there', async () => {
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-auto-offline-'));
  cleanup.after(() => rm(home, { recursive: true, force: true }));
  await mkdir(join(home, 'config'), { mode: 0o700 });
  const config = {
    provider: 'auto',
    providers: {
      mailtm: { baseUrl: await refused() },
      tempmaillol: { baseUrl: await refused() },
      guerrilla: { baseUrl: await refused() },
      tempmail: { baseUrl: await refused() },
    },
  };
  await writeFile(join(home, 'config', 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const app = spawnApp({ args: [], env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home }, cols: 100, rows: 30 });
  cleanup.after(() => app.kill());

  // mail.tm is down at start; each Enter meets the next one down, until the local service.
  await app.waitForScreen(/Trying TempMail\.lol instead/, 20_000);
  let screen = '';
  for (let i = 0; i < 5 && !/Trying local service instead/.test(screen); i++) {
    screen = await app.press(
      KEYS.ENTER,
      (s) => /Trying (Guerrilla Mail|this machine|tempmail|local service)[^\n]* instead/.test(s) && s !== screen,
      20_000,
    );
  }
  expect(screen.replace(/\s+/g, ' ')).toMatch(
    /The service is unreachable \(connection refused\)\. Trying local service instead/,
  );
  screen = await app.waitForScreen(/Random address on tempmail\.test/, 20_000);

  await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s), 20_000);
  const address = addressOnScreen(app);
  expect(address).toMatch(/@tempmail\.test$/);
  await app.press('q');
  expect(await app.exited()).toBe(0);
  const saved = openSavedSessions({ env: { TEMPMAIL_TUI_HOME: home } }).listLive();
  expect(saved.map((s) => [s.email, s.provider, s.baseUrl])).toEqual([
    [address, 'tempmail', `local:${join(home, 'data')}/`],
  ]);
  // The service it started stopped with it.
  expect(existsSync(join(home, 'data', 'service.lock'))).toBe(false);
}, 90_000);
