/**
 * Issue 24, point 3: the picker checks a custom name against the provider's own rules before it shows a
 * ✓. mail.tm refuses names under 3 characters (422 "This value is not valid."); before, the picker showed
 * "✓ ab@mailtm.test" and then mail.tm's error. Against the mail.tm and Guerrilla Mail fakes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createProvider, createProviderSet, type ProviderRef } from '../../../src/client/providers';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { App } from '../../../src/tui/app';
import { startGuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { KEY, renderAt } from '../ui';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

async function appOn(ref: ProviderRef) {
  const dir = mkdtempSync(join(tmpdir(), 'tui-names-'));
  cleanup.after(() => rmSync(dir, { recursive: true, force: true }));
  const providers = createProviderSet({
    choices: [ref],
    make: (r) => createProvider(r.provider, { baseUrl: r.baseUrl, retries: 0 }),
  });
  const screen = renderAt(
    <App
      providers={providers}
      settings={{ pollIntervalMs: 60_000, bell: false }}
      saved={{ store: openSavedSessions({ dir }), serviceKey: ref.baseUrl }}
      noColor
      onQuit={() => undefined}
    />,
    80,
    24,
  );
  cleanup.after(() => screen.unmount());
  return screen;
}

it("mail.tm: a two-letter name is refused by mail.tm's rule before any ✓; three letters are fine", async () => {
  const fake = await startMailtmFake();
  cleanup.after(() => fake.close());
  const screen = await appOn({ provider: 'mailtm', baseUrl: fake.baseUrl });
  await screen.waitFor('Custom name on mailtm.test');
  await screen.press('3');
  await screen.waitFor('Custom name on mailtm.test (Enter');
  await screen.press('ab');
  const frame = await screen.waitFor('✗ mail.tm wants at least 3 characters');
  expect(frame).not.toContain('✓');
  // Enter does nothing with a name the rule refuses: no account is asked for.
  await screen.press(KEY.ENTER);
  expect(fake.log.some((l) => l.path === '/accounts')).toBe(false);
  await screen.press('c');
  await screen.waitFor('✓ abc@mailtm.test');
});

it("Guerrilla Mail: its characters ('+' is one), not the interface's", async () => {
  const fake = await startGuerrillaFake();
  cleanup.after(() => fake.close());
  const screen = await appOn({ provider: 'guerrilla', baseUrl: fake.baseUrl });
  await screen.waitFor('Custom name on guerrillamail.com');
  while (
    !/^>/.test(
      screen
        .frame()
        .split('\n')
        .find((l) => l.includes('Custom name on guerrillamail.com')) ?? '',
    )
  )
    await screen.press('j');
  await screen.press(KEY.ENTER);
  await screen.waitFor('Custom name on guerrillamail.com (Enter');
  await screen.press('me+news');
  await screen.waitFor('✓ me+news@guerrillamail.com');
  await screen.press('!');
  await screen.waitFor('✗ only a-z, 0-9, ".", "_", "+" and "-" on Guerrilla Mail');
});
