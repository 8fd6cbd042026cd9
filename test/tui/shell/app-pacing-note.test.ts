/**
 * Issue 36, point 5, in the app: a wait of a second or more for a provider's pace shared with the user's
 * other processes is said on the status line (through the same channel as a 429's wait); it was silent.
 * The pacing file says the next turn is 3 s on, as a burst of the user's scripts would leave it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSettings } from '../../../src/state/app-config';
import { pacingName } from '../../../src/client/pacing/pacing-file';
import { appPaths } from '../../../src/state/paths';
import { connectService } from '../../../src/tui/shell/app-service';
import { rateWaitText } from '../../../src/tui/shell/rate-waits';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';

let fake: MailtmFake;
let home: string;
beforeAll(async () => {
  fake = await startMailtmFake();
  home = mkdtempSync(join(tmpdir(), 'tempmail-app-pacing-'));
});
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await fake.close();
});

it('a pacing wait of seconds is said on the status line, naming the provider', async () => {
  const env = { TEMPMAIL_TUI_HOME: home, HOME: home };
  const paths = appPaths(env);
  const settings = loadSettings({ env, paths, flags: { provider: 'mailtm', baseUrl: fake.baseUrl } });
  mkdirSync(join(paths.state, 'pacing'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(paths.state, 'pacing', pacingName('mailtm', fake.baseUrl)),
    `${Date.now() + 3_000} ${Date.now()}\n`,
  );
  const service = await connectService(settings, env);
  if ('error' in service) throw new Error(service.error);
  const said: string[] = [];
  service.rateWaits.subscribe((wait) => said.push(rateWaitText(wait)));
  // The first domains are on their way (their turn 3 s on); a second call queues behind them.
  await service.providers.get(service.start)!.listDomains();
  expect(said.at(-1)).toMatch(/^waiting [1-4] s for mail\.tm's rate limit$/);
}, 20_000);
