/**
 * Done-when of issue 13 for the app: the built program in a real pseudo-terminal, on mail.tm and on
 * Guerrilla Mail (their conformance fakes on loopback): create an address, a mail with a code arrives
 * (pushed by mail.tm, polled from Guerrilla Mail), read it, delete it, and for mail.tm forget the address
 * with its account deleted. The password and tokens never reach the screen or the bytes written.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { startGuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { addressOnScreen, isConfirm, isInbox, isViewer, neutralEnv } from '../flow';
import { KEYS, spawnApp, type PtyApp } from '../pty-harness';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

async function appOn(provider: string, baseUrl: string, extra: string[] = []): Promise<{ app: PtyApp; home: string }> {
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-providers-'));
  cleanup.after(() => rm(home, { recursive: true, force: true }));
  const app = spawnApp({
    args: ['--provider', provider, '--base-url', baseUrl, ...extra],
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home },
    cols: 100,
    rows: 30,
  });
  cleanup.after(() => app.kill());
  return { app, home };
}

const CODE = {
  subject: 'Your Acme verification code',
  text: 'Your verification code is 482913. It expires in 10 minutes.',
};

describe('the app on the public providers, in a pseudo-terminal', () => {
  it('mail.tm: create, mail pushed at once, read, delete, forget with the account deleted', async () => {
    const fake = await startMailtmFake();
    cleanup.after(() => fake.close());
    // Polling a minute apart: the mail can only show at once by the push.
    const { app, home } = await appOn('mailtm', fake.baseUrl, ['--poll-interval', '60']);
    const picker = await app.waitForScreen(/Random address on mailtm\.test/);
    expect(picker).toContain('Provider: mail.tm');
    await app.press(KEYS.ENTER, (s) => isInbox(s) && /no expiry/.test(s) && /mail\.tm · instant/.test(s));
    const address = addressOnScreen(app);
    expect(address).toMatch(/@mailtm\.test$/);

    fake.deliver(address, { from: { name: 'Acme Accounts', address: 'accounts@acme.example' }, ...CODE });
    await app.waitForScreen((s) => isInbox(s) && s.includes(CODE.subject) && s.includes('[code 482913]'), 10_000);
    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('Your verification code is 482913.'));
    await app.press('d', isConfirm);
    await app.press('y', (s) => isInbox(s) && s.includes(`No mail yet for ${address}.`));
    expect(fake.inbox(address)).toEqual([]);

    await app.press('x', (s) => s.includes(`Forget ${address}?`) && s.includes('D delete there too'));
    await app.press('D', (s) => s.includes(`Deleted ${address} at mail.tm and forgot it`));
    expect(fake.accounts()).toEqual([]);
    await app.press('q');
    expect(await app.exited()).toBe(0);

    const raw = app.raw().toString('utf8');
    const store = openSavedSessions({ env: { TEMPMAIL_TUI_HOME: home } });
    expect(store.listLive()).toEqual([]);
    // Nothing secret on screen or in the bytes: the fake's tokens are JWT-shaped (three dotted parts).
    expect(raw).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[0-9a-f]{64}/);
  });

  it('Guerrilla Mail: create, mail polled, read, delete', async () => {
    const fake = await startGuerrillaFake();
    cleanup.after(() => fake.close());
    const { app, home } = await appOn('guerrilla', fake.baseUrl, ['--poll-interval', '1']);
    const picker = await app.waitForScreen(/Random address on guerrillamail\.com/);
    expect(picker).toContain('anyone who types the same name reads the inbox');
    await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in (59|60) min/.test(s) && /Guerrilla Mail/.test(s));
    const address = addressOnScreen(app);
    expect(address).toMatch(/@guerrillamail\.com$/);
    fake.deliver(address, {
      from: 'Acme Accounts <accounts@acme.example>',
      subject: CODE.subject,
      body: `<p>${CODE.text}</p>`,
    });
    await app.waitForScreen(
      (s) => isInbox(s) && s.includes(CODE.subject) && !s.includes('Welcome to Guerrilla Mail'),
      10_000,
    );
    await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes('Your verification code is 482913.'));
    await app.press('d', isConfirm);
    await app.press('y', (s) => isInbox(s) && s.includes(`No mail yet for ${address}.`));
    expect(fake.inbox(address)).toEqual([1]);
    await app.press('q');
    expect(await app.exited()).toBe(0);
    const saved = openSavedSessions({ env: { TEMPMAIL_TUI_HOME: home } }).listLive();
    expect(saved.map((s) => [s.email, s.provider])).toEqual([[address, 'guerrilla']]);
    expect(app.raw().toString('utf8')).not.toContain(saved[0]!.token);
  });
});
