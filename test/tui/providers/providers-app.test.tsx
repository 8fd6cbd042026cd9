/**
 * The app across providers, rendered against real services: the in-process tempmail service (the
 * reference service) and the mail.tm and Guerrilla Mail conformance fakes over loopback. The picker
 * says plainly that a local address only gets mail sent on this machine and `p` moves on to a public
 * provider; an address made there shows its provider in the header, the picker and the switcher; mail
 * pushed by mail.tm shows at once; forgetting a mail.tm address offers to delete the account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProvider, createProviderSet, type ProviderRef } from '../../../src/client/providers';
import { createTempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { App } from '../../../src/tui/app';
import { startTestService, type TestService } from '../../harness/service';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake, type MailtmFake, type MailtmFakeOptions } from '../../providers/mailtm-fake';
import { joined, KEY, renderAt, type Screen } from '../ui';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

interface World {
  screen: Screen;
  svc: TestService;
  mailtm: MailtmFake;
  guerrilla: GuerrillaFake;
  store: ReturnType<typeof openSavedSessions>;
}

/** The app in local mode (the reference service as the in-process one), with both public fakes one `p` away. */
async function world(options: { mailtm?: MailtmFakeOptions; pollIntervalMs?: number } = {}): Promise<World> {
  const svc = await startTestService();
  cleanup.after(() => svc.close());
  const mailtm = await startMailtmFake(options.mailtm);
  cleanup.after(() => mailtm.close());
  const guerrilla = await startGuerrillaFake();
  cleanup.after(() => guerrilla.close());
  const dir = mkdtempSync(join(tmpdir(), 'tui-providers-'));
  cleanup.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openSavedSessions({ dir });
  const local: ProviderRef = { provider: 'tempmail', baseUrl: `local:${dir}/data` };
  const choices: ProviderRef[] = [
    local,
    { provider: 'mailtm', baseUrl: mailtm.baseUrl },
    { provider: 'guerrilla', baseUrl: guerrilla.baseUrl },
  ];
  const providers = createProviderSet({
    choices,
    known: [[local, createTempmailProvider({ baseUrl: svc.baseUrl, retries: 0 })]],
    make: (ref) => createProvider(ref.provider, { baseUrl: ref.baseUrl, retries: 0, timeoutMs: 3000 }),
  });
  const screen = renderAt(
    <App
      providers={providers}
      settings={{ pollIntervalMs: options.pollIntervalMs ?? 60_000, bell: false }}
      local={{ smtpHost: svc.smtpHost, smtpPort: svc.smtpPort }}
      saved={{ store, serviceKey: local.baseUrl }}
      noColor
      onQuit={() => undefined}
    />,
    100,
    30,
  );
  cleanup.after(() => screen.unmount());
  return { screen, svc, mailtm, guerrilla, store };
}

const ADDRESS = /([a-z0-9._-]+@[a-z0-9.-]+\.(?:test|com|net|org|me|la|de|biz))/;

/** Waits for the session screen of a new mail.tm address and returns the address. */
async function mailtmAddress(screen: Screen): Promise<string> {
  const frame = await screen.waitFor((f) => /^\S+@mailtm\.test +no expiry/.test(f));
  return ADDRESS.exec(frame.split('\n')[0]!)![1]!;
}

describe('the app across providers', () => {
  it('local mode says only this machine reaches it; p moves to mail.tm, where an address is made and shown as mail.tm', async () => {
    const w = await world();
    let frame = await w.screen.waitFor('Random address on tempmail.test');
    expect(frame).toContain('Only mail sent from this machine arrives here: a website cannot reach it · p: mail.tm');
    expect(frame).toContain('p provider');
    await w.screen.press('p');
    frame = await w.screen.waitFor('Random address on mailtm.test');
    expect(frame).toContain(`Provider: mail.tm (${new URL(w.mailtm.baseUrl).host})`);
    expect(frame).toContain(
      'mail.tm: Public: any website can send here; the account has no expiry · p: Guerrilla Mail',
    );
    expect(frame).not.toContain('old-tm.test');
    await w.screen.press(KEY.ENTER);
    const address = await mailtmAddress(w.screen);
    expect(w.screen.frame().split('\n')[1]).toMatch(/ {3}mail\.tm( · instant)?$/);
    // Saved with its provider and password, never shown.
    const saved = w.store.listLive().find((s) => s.email === address)!;
    expect(saved).toMatchObject({ provider: 'mailtm', baseUrl: w.mailtm.baseUrl, expiresAt: null });
    expect(w.screen.frames.some((f) => f.includes(saved.password!) || f.includes(saved.token))).toBe(false);

    // Mail: checked with r (the poll interval is a minute here), read, with its sender.
    w.mailtm.deliver(address, {
      from: { name: 'Acme', address: 'accounts@acme.example' },
      subject: 'Your Acme code',
      text: 'Your code is 482913.',
    });
    await w.screen.press('r');
    await w.screen.waitFor('Your Acme code');
    await w.screen.press(KEY.ENTER);
    await w.screen.waitFor('Your code is 482913.');
  });

  it('mail.tm pushes new mail: it shows at once with polling a minute apart, and the header says so', async () => {
    const w = await world();
    await w.screen.waitFor('Random address on tempmail.test');
    await w.screen.press('p');
    await w.screen.waitFor('Random address on mailtm.test');
    await w.screen.press(KEY.ENTER);
    const frame = await w.screen.waitFor(/mail\.tm · instant/);
    const address = ADDRESS.exec(frame.split('\n')[0]!)![1]!;
    w.mailtm.deliver(address, { subject: 'Pushed to you', text: 'hello' });
    await w.screen.waitFor('Pushed to you', 5000);
  });

  it('with the event hub failing, polling still brings the mail', async () => {
    const w = await world({ mailtm: { mercure: 'fail' }, pollIntervalMs: 1000 });
    await w.screen.waitFor('Random address on tempmail.test');
    await w.screen.press('p');
    await w.screen.waitFor('Random address on mailtm.test');
    await w.screen.press(KEY.ENTER);
    const address = await mailtmAddress(w.screen);
    w.mailtm.deliver(address, { subject: 'Polled for you', text: 'hello' });
    await w.screen.waitFor('Polled for you', 10_000);
    expect(w.screen.frame()).not.toContain('instant');
  });

  it('Guerrilla Mail: a custom name on a chosen domain, its mail, and the switcher names each provider', async () => {
    const w = await world();
    await w.screen.waitFor('Random address on tempmail.test');
    // A local one first, then Guerrilla Mail.
    await w.screen.press(KEY.ENTER);
    const local = ADDRESS.exec((await w.screen.waitFor(/expires in \d/)).split('\n')[0]!)![1]!;
    await w.screen.press('n', 'y');
    await w.screen.waitFor('Random address on tempmail.test');
    await w.screen.press('p', 'p');
    let frame = await w.screen.waitFor('Custom name on sharklasers.com');
    // 100 columns: the shorter wording, so that the way to the next provider stays whole.
    expect(frame).toContain('Guerrilla Mail: public; anyone typing the name reads it; 60 min · p: local service');
    // The list scrolls (ten domains, twice): move to the line instead of typing a digit.
    while (
      !/^>/.test(
        w.screen
          .frame()
          .split('\n')
          .find((l) => l.includes('Custom name on sharklasers.com')) ?? '',
      )
    )
      await w.screen.press('j');
    await w.screen.press(KEY.ENTER);
    await w.screen.waitFor('Custom name on sharklasers.com (Enter');
    await w.screen.press('reader-one', KEY.ENTER);
    frame = await w.screen.waitFor(/reader-one@sharklasers\.com +expires in (59|60) min/);
    expect(frame.split('\n')[1]).toMatch(/Guerrilla Mail/);
    w.guerrilla.deliver('reader-one@sharklasers.com', {
      from: 'Shop <hello@shop.example>',
      subject: 'Tom &amp; Jerry',
      body: '<p>Hi</p>',
    });
    await w.screen.press('r');
    await w.screen.waitFor('Tom &amp; Jerry');
    // The welcome message is not there.
    expect(w.screen.frame()).not.toContain('Welcome to Guerrilla Mail');
    await w.screen.press('s');
    frame = await w.screen.waitFor('saved addresses (2)');
    expect(frame).toMatch(/reader-one@sharklasers\.com +expires in \d+:\d\d · Guerrilla Mail {2}\(current\)/);
    expect(frame).toContain(`${local}`);
    expect(frame).toMatch(new RegExp(`${local.replace('.', '\\.')} +expires in \\d+:\\d\\d · local service`));
  });

  it('forgetting a mail.tm address offers to delete the account: D deletes it there and forgets it here', async () => {
    const w = await world();
    await w.screen.waitFor('Random address on tempmail.test');
    await w.screen.press('p');
    await w.screen.waitFor('Random address on mailtm.test');
    await w.screen.press(KEY.ENTER);
    const address = await mailtmAddress(w.screen);
    expect(w.mailtm.accounts().map((a) => a.address)).toEqual([address]);
    await w.screen.press('x');
    // The question wraps: its whole wording, what D deletes said in full.
    let frame = await w.screen.waitFor((f) =>
      joined(f).includes(
        `Forget ${address}? y: here only · D: also delete the mail.tm account (its mail is gone for good) · other key: no`,
      ),
    );
    expect(frame).toContain('y yes  D delete there too  any other key no');
    await w.screen.press('D');
    frame = await w.screen.waitFor(`Deleted ${address} at mail.tm and forgot it`);
    expect(w.mailtm.accounts()).toEqual([]);
    expect(w.store.listLive().some((s) => s.email === address)).toBe(false);
    expect(frame).toContain('choose an address');
  });

  it('a provider that is down or limiting: the picker says so in words and offers the next one with p', async () => {
    const w = await world();
    await w.screen.waitFor('Random address on tempmail.test');
    w.mailtm.failNext(429, 100, 30);
    await w.screen.press('p');
    const frame = await w.screen.waitFor('Could not load the domains');
    expect(frame).toContain('Too many requests to the service (try again in 30 s)');
    expect(frame).toMatch(/Retrying in 3\d s\. Press r to retry now, p to try Guerrilla Mail, q to quit\./);
    await w.screen.press('p');
    await w.screen.waitFor('Random address on guerrillamail.com');
  });

  it('y forgets a mail.tm address here only; the account lives on', async () => {
    const w = await world();
    await w.screen.waitFor('Random address on tempmail.test');
    await w.screen.press('p');
    await w.screen.waitFor('Random address on mailtm.test');
    await w.screen.press(KEY.ENTER);
    const address = await mailtmAddress(w.screen);
    await w.screen.press('x');
    await w.screen.waitFor(`Forget ${address}?`);
    await w.screen.press('y');
    await w.screen.waitFor(`Forgot ${address}`);
    expect(w.mailtm.accounts().map((a) => a.address)).toEqual([address]);
  });
});
