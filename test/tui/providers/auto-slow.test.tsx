/**
 * Issue 36, point 8, in the app: `--provider auto` with providers that take their requests and trickle
 * their answer a byte at a time (mail.tm's domains) or never answer (TempMail.lol's creation), the app
 * wired as `tempmail-tui` wires it (app-service.ts, the user's settings). Each try is bounded by
 * AUTO_TRY_MS (8 s), its requests ended then (the fake sees their connections closed), and the status
 * line names the provider tried and why the app moved on. Before, the picker waited ~25-30 s per slow
 * provider (its requests' own timeouts and retries) before moving on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AUTO_TRY_MS } from '../../../src/client/auto-try';
import { loadSettings } from '../../../src/state/app-config';
import { appPaths } from '../../../src/state/paths';
import { App } from '../../../src/tui/app';
import { connectService } from '../../../src/tui/shell/app-service';
import { cleanupAfterEach } from '../../harness/cleanup';
import { waitFor } from '../../harness/wait';
import { startGuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { startTempmaillolFake } from '../../providers/tempmaillol-fake';
import { joined, KEY, renderAt } from '../ui';

const cleanup = cleanupAfterEach();
// A try's deadline and room for a loaded machine to draw the frame that says so.
const TRY_WAIT_MS = AUTO_TRY_MS + 6_000;

it('auto passes a trickling and a hanging provider within a try each, naming each, its requests ended, and makes the address on the third', async () => {
  const mailtm = await startMailtmFake();
  cleanup.after(() => mailtm.close());
  const lol = await startTempmaillolFake();
  cleanup.after(() => lol.close());
  const guerrilla = await startGuerrillaFake();
  cleanup.after(() => guerrilla.close());
  mailtm.server.stall('trickle');
  lol.server.stall('hang');
  const home = mkdtempSync(join(tmpdir(), 'tui-auto-slow-'));
  cleanup.after(() => rmSync(home, { recursive: true, force: true }));
  const env = { TEMPMAIL_TUI_HOME: home, HOME: home };
  const paths = appPaths(env);
  mkdirSync(paths.config, { recursive: true, mode: 0o700 });
  const config = {
    provider: 'auto',
    providerOrder: ['mailtm', 'tempmaillol', 'guerrilla'],
    providers: {
      mailtm: { baseUrl: mailtm.baseUrl },
      tempmaillol: { baseUrl: lol.baseUrl },
      guerrilla: { baseUrl: guerrilla.baseUrl },
    },
  };
  writeFileSync(join(paths.config, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const settings = loadSettings({ env, paths });
  const service = await connectService(settings, env);
  if ('error' in service) throw new Error(service.error);
  cleanup.after(() => service.autoLocal?.close());
  const screen = renderAt(
    <App
      providers={service.providers}
      settings={{ pollIntervalMs: 60_000, bell: false }}
      domains={service.domains}
      rateWaits={service.rateWaits}
      auto
      noColor
      onQuit={() => undefined}
    />,
    100,
    30,
  );
  cleanup.after(() => screen.unmount());

  // mail.tm's domains trickle: the app says it tries mail.tm, then moves on at its deadline, saying why.
  await screen.waitFor('Trying mail.tm…');
  let frame = await screen.waitFor((f) => joined(f).includes('Trying TempMail.lol instead'), TRY_WAIT_MS);
  expect(joined(frame)).toContain('mail.tm: did not answer in 8 s. Trying TempMail.lol instead');
  // The abandoned requests were ended, their connections closed.
  expect(mailtm.server.requests.length).toBeGreaterThan(0);
  await waitFor(() => mailtm.server.stalled() === 0, { message: 'mail.tm requests still open' });

  // TempMail.lol takes the creation and never answers: on to Guerrilla Mail at its deadline.
  await screen.waitFor('Random address (TempMail.lol picks the domain)');
  await screen.press(KEY.ENTER);
  frame = await screen.waitFor((f) => joined(f).includes('Trying Guerrilla Mail instead'), TRY_WAIT_MS);
  expect(joined(frame)).toContain('TempMail.lol: did not answer in 8 s. Trying Guerrilla Mail instead');
  expect(lol.server.requests.map((r) => `${r.method} ${r.path}`)).toContain('POST /v2/inbox/create');
  await waitFor(() => lol.server.stalled() === 0, { message: 'TempMail.lol requests still open' });

  // Guerrilla Mail answers: a usable address.
  await screen.waitFor('Random address on guerrillamail.com');
  await screen.press(KEY.ENTER);
  frame = await screen.waitFor(/@guerrillamail\.com/, 10_000);
  expect(frame).not.toContain('choose an address');
}, 45_000);
