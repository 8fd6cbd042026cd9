/**
 * Issue 24, points 1 and 2 in the app, against the mail.tm fake: a 429 on creating is waited out with a
 * word on the status line, then the address is made; a sign-in refused after the account was made
 * leaves the account saved (with its password), offered to resume, and resuming it signs in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RATE_LIMIT_WAIT } from '../../../src/client/http/http-client';
import { createProvider, createProviderSet, type ProviderRef } from '../../../src/client/providers';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { App } from '../../../src/tui/app';
import { createRateWaits } from '../../../src/tui/shell/rate-waits';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';
import { joined, KEY, renderAt } from '../ui';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

async function appOn(fake: MailtmFake) {
  const dir = mkdtempSync(join(tmpdir(), 'tui-rate-orphan-'));
  cleanup.after(() => rmSync(dir, { recursive: true, force: true }));
  const ref: ProviderRef = { provider: 'mailtm', baseUrl: fake.baseUrl };
  const rateWaits = createRateWaits();
  const providers = createProviderSet({
    choices: [ref],
    make: (r) =>
      createProvider(r.provider, {
        baseUrl: r.baseUrl,
        retries: 0,
        rateLimitWait: { ...RATE_LIMIT_WAIT, onWait: (seconds) => rateWaits.tell({ label: 'mail.tm', seconds }) },
      }),
  });
  const store = openSavedSessions({ dir });
  const screen = renderAt(
    <App
      providers={providers}
      settings={{ pollIntervalMs: 60_000, bell: false }}
      saved={{ store, serviceKey: ref.baseUrl }}
      rateWaits={rateWaits}
      noColor
      onQuit={() => undefined}
    />,
    80,
    24,
  );
  cleanup.after(() => screen.unmount());
  return { screen, store };
}

it('a 429 on creating is waited out, said on the status line, and the address is made', async () => {
  const fake = await startMailtmFake();
  cleanup.after(() => fake.close());
  const { screen } = await appOn(fake);
  await screen.waitFor('Random address on mailtm.test');
  fake.failNext(429, 1, 1, 'accounts');
  await screen.press(KEY.ENTER);
  // Beside "Creating the address…", wrapped at 80 columns.
  await screen.waitFor((f) =>
    joined(f).includes('Creating the address… mail.tm is limiting requests: waiting 1 s, then asking again'),
  );
  await screen.waitFor(/^\S+@mailtm\.test +no expiry/, 10_000);
  expect(fake.accounts()).toHaveLength(1);
});

it('a sign-in refused after the account was made: the account is saved, offered, and resuming it signs in', async () => {
  const fake = await startMailtmFake();
  cleanup.after(() => fake.close());
  const { screen, store } = await appOn(fake);
  await screen.waitFor('Random address on mailtm.test');
  fake.failNext(429, 1, 60, 'token');
  await screen.press(KEY.ENTER);
  await screen.waitFor('Too many requests to the service (try again in 60 s)');
  const [account] = fake.accounts();
  const saved = store.listLive();
  expect(saved.map((s) => [s.email, s.provider, s.token])).toEqual([[account!.address, 'mailtm', '']]);
  expect(saved[0]!.password).toBeTruthy();
  fake.deliver(account!.address, { subject: 'Kept for you', text: 'hello' });
  // The picker offers it to resume at once (saved before its sign-in was asked for).
  await screen.waitFor(`Resume ${account!.address}`);
  await screen.press('g', KEY.ENTER);
  await screen.waitFor('Kept for you', 10_000);
});
