import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../../src/client/client-types';
import { early } from '../../../src/tui/shell/early';
import { helpRows } from '../../../src/tui/keymap/keymap';
import { startTestService, type TestService } from '../../harness/service';
import { startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';
import { collapsed, readWholeHelp } from '../widgets/help-pages';
import { closedPort } from '../../harness/ports';
import { singleProvider } from '../../harness/providers';

let h: AppHarness | undefined;
const extra: TestService[] = [];
closeAppsAfterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

describe('picker', () => {
  it('offers every domain (random and custom name), each external account and "picked for me"', async () => {
    const svc = await startTestService({ extmailAccounts: [{ email: 'someone@gmail.com', dotInsensitive: true }] });
    extra.push(svc);
    h = await startApp({ svc });
    const frame = await h.screen.waitFor('picked for me');
    expect(frame).toContain('Random address on tempmail.test');
    expect(frame).toContain('Random address on inbox.test');
    expect(frame).toContain('Custom name on tempmail.test');
    expect(frame).toContain('Custom name on inbox.test');
    expect(frame).toContain('External alias of someone@gmail.com');
    expect(frame).toContain('External alias, picked for me');
    expect(frame).toContain('Service: test');
    // Nothing saved yet: the footer does not offer x (forget).
    expect(frame).not.toContain('x forget');
    // Each line says the digit that picks it.
    const numbered = frame
      .split('\n')
      .map((row) => /^\W*(\d) (.+?)\s*$/.exec(row))
      .filter((m) => m !== null);
    expect(numbered.map((m) => m[1])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(numbered[0]![2]).toBe('Random address on tempmail.test');
    const third = numbered[2]![2]!;
    expect(third).toMatch(/^Custom name on /);
    await h.screen.press('3');
    await h.screen.waitFor(`${third.replace(/…$/, '')} (Enter creates it, Esc goes back):`);
  });

  it('creates a random address on the chosen domain and opens its inbox with a live countdown', async () => {
    h = await startApp({ local: true });
    await h.screen.waitFor('Random address on inbox.test');
    await h.screen.press('j', KEY.ENTER);
    const frame = await h.screen.waitFor(/expires in 59 min/);
    expect(frame).toMatch(/[a-z0-9-]+@inbox\.test/);
    expect(frame).toContain(`via SMTP 127.0.0.1:${h.svc.smtpPort}`);
  });

  it('creates an external alias picked by the service', async () => {
    const svc = await startTestService({ extmailAccounts: [{ email: 'someone@gmail.com', dotInsensitive: true }] });
    extra.push(svc);
    h = await startApp({ svc });
    await h.screen.waitFor('picked for me');
    await h.screen.press('G'); // not a picker key: nothing happens
    await h.screen.press(KEY.ARROW_DOWN, KEY.ARROW_DOWN, KEY.ARROW_DOWN, KEY.ARROW_DOWN, KEY.ARROW_DOWN, KEY.ENTER);
    const frame = await h.screen.waitFor('expires in');
    // An alias of the account: plus-addressing and/or dots, the mailbox is still someone@gmail.com.
    const local = /([a-z0-9.+-]+)@gmail\.com/.exec(frame)?.[1] ?? '';
    expect(local.split('+')[0]!.replace(/\./g, '')).toBe('someone');
  });

  it('creates an alias of the external account picked by hand', async () => {
    const svc = await startTestService({
      extmailAccounts: [
        { email: 'first@provider.test', dotInsensitive: false },
        { email: 'someone@gmail.com', dotInsensitive: true },
      ],
    });
    extra.push(svc);
    h = await startApp({ svc });
    const frame = await h.screen.waitFor('External alias of someone@gmail.com');
    const line = frame.split('\n').find((row) => row.includes('External alias of someone@gmail.com'))!;
    await h.screen.press(/(\d) External/.exec(line)![1]!);
    const inbox = await h.screen.waitFor('expires in');
    const local = /([a-z0-9.+-]+)@gmail\.com/.exec(inbox)?.[1] ?? '';
    expect(local.split('+')[0]!.replace(/\./g, '')).toBe('someone');
    expect(inbox).not.toContain('@provider.test');
  });

  it('checks a custom name as it is typed, says "taken, try another" on 409, and accepts a free one', async () => {
    h = await startApp();
    await h.api.createSession({ prefix: 'taken-name', domainId: 1 });
    await h.screen.waitFor('Custom name on tempmail.test');
    await h.screen.press('j', 'j', KEY.ENTER);
    await h.screen.waitFor('Custom name on tempmail.test (Enter creates it');
    await h.screen.waitFor('type a name');
    await h.screen.type('Bad..Name');
    await h.screen.waitFor('no two dots in a row');
    expect(h.screen.frame()).toContain('bad..name'); // lower-cased as typed
    await h.screen.press(KEY.ENTER); // refused locally: nothing is sent
    // Each edit is checked on screen before the next key.
    await h.screen.press(KEY.BACKSPACE);
    await h.screen.waitForGone('bad..name');
    expect(h.screen.frame()).toContain('bad..nam');
    // Start over (Esc, back in) rather than erasing key by key.
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Random address on tempmail.test');
    await h.screen.press('3'); // the third line: custom name on tempmail.test
    await h.screen.waitFor('type a name');
    // A role name the service refuses is refused as it is typed, never shown with a ✓ first.
    await h.screen.type('support');
    await h.screen.waitFor('"support" is reserved');
    expect(h.screen.frame()).not.toContain('✓');
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Random address on tempmail.test');
    await h.screen.press('3'); // the third line: custom name on tempmail.test
    await h.screen.waitFor('type a name');
    await h.screen.type('taken-name');
    await h.screen.waitFor('✓ taken-name@tempmail.test');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('taken-name@tempmail.test is taken, try another');
    await h.screen.press('2');
    await h.screen.waitFor('✓ taken-name2@tempmail.test');
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor('expires in');
    expect(frame).toContain('taken-name2@tempmail.test');
  });

  it('keeps every key of a fast typist: single-key chunks back to back, no frame in between', async () => {
    h = await startApp();
    await h.screen.waitFor('Custom name on tempmail.test');
    await h.screen.press('3');
    await h.screen.waitFor('type a name');
    // Over SSH keys often arrive faster than a frame: each is its own chunk, none waits for a render.
    for (const key of 'quick-fox.2') h.screen.write(key);
    await h.screen.waitFor('✓ quick-fox.2@tempmail.test');
    // Editing keys as fast: two backspaces, a cursor move and an insert, then Enter in the same burst.
    for (const key of [KEY.BACKSPACE, KEY.BACKSPACE, KEY.ARROW_LEFT, KEY.ARROW_LEFT, 'e', KEY.ENTER])
      h.screen.write(key);
    const frame = await h.screen.waitFor('expires in');
    expect(frame).toContain('quick-feox@tempmail.test');
  });

  it('Esc leaves the custom name input for the list', async () => {
    h = await startApp();
    await h.screen.waitFor('Custom name on tempmail.test');
    await h.screen.press('3');
    await h.screen.waitFor('Enter creates it');
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Random address on tempmail.test');
  });

  it('shows an unreachable service as an error with retry, and recovers when it comes up', async () => {
    const port = await closedPort();
    const { createApi } = await import('../../../src/client/tempmail/tempmail-client');
    const { renderAt } = await import('../ui');
    const { App } = await import('../../../src/tui/app');
    const api = createApi({ baseUrl: `http://127.0.0.1:${port}/`, retries: 0, timeoutMs: 2000 });
    const screen = renderAt(
      <App
        providers={singleProvider(api, `http://127.0.0.1:${port}/`)}
        settings={{ pollIntervalMs: 60_000, bell: false }}
        noColor
        onQuit={() => {}}
      />,
    );
    try {
      const frame = await screen.waitFor('Could not load the domains');
      expect(frame).toMatch(/unreachable|refused/i);
      expect(frame).toContain('Press r to retry');
      const svc = await startTestService({ httpPort: port });
      extra.push(svc);
      await screen.press('r');
      await screen.waitFor('Random address on tempmail.test');
    } finally {
      screen.unmount();
    }
  });

  it('an unreachable service is asked again by itself, with a countdown, and found without a key press', async () => {
    const port = await closedPort();
    const { createApi } = await import('../../../src/client/tempmail/tempmail-client');
    const { renderAt } = await import('../ui');
    const { App } = await import('../../../src/tui/app');
    const asked: number[] = [];
    const real = createApi({ baseUrl: `http://127.0.0.1:${port}/`, retries: 0, timeoutMs: 2000 });
    const api: TempMailApi = {
      ...real,
      listDomains: () => {
        asked.push(Date.now());
        return real.listDomains();
      },
    };
    const screen = renderAt(
      <App
        providers={singleProvider(api, `http://127.0.0.1:${port}/`)}
        settings={{ pollIntervalMs: 60_000, bell: false }}
        noColor
        onQuit={() => {}}
      />,
    );
    try {
      let frame = await screen.waitFor(/Retrying in [12] s\. Press r to retry now, q to quit\./);
      expect(frame).toContain('Could not load the domains');
      // Backs off: the second failure waits longer (2-4 s) than the first (1-2 s).
      frame = await screen.waitFor(() => asked.length >= 3, 10_000);
      const [a, b, c] = asked as [number, number, number];
      expect(b - a).toBeGreaterThanOrEqual(950);
      expect(c - b).toBeGreaterThanOrEqual(1950);
      // Comes up: found on the next try, with no key pressed.
      const svc = await startTestService({ httpPort: port });
      extra.push(svc);
      // The 4th try comes 4-8 s after the 3rd, the 5th 8-16 s later if the service was not up in time.
      await screen.waitFor('Random address on tempmail.test', 20_000);
    } finally {
      screen.unmount();
    }
  }, 30_000);

  it('domains asked for before the app is drawn: the first frame has them, no "Loading" frame, no second request', async () => {
    const svc = await startTestService();
    extra.push(svc);
    const asked: string[] = [];
    const counting = (api: TempMailApi): TempMailApi => ({
      ...api,
      listDomains: () => {
        asked.push('list');
        return api.listDomains();
      },
    });
    const domains = early(createApi({ baseUrl: svc.baseUrl }).listDomains());
    await domains.promise;
    h = await startApp({ svc, wrapApi: counting, props: { domains } });
    await h.screen.waitFor('Random address on tempmail.test');
    expect(h.screen.frames.some((f) => f.includes('Loading the domains'))).toBe(false);
    expect(h.screen.frames.find((f) => f.includes('choose an address'))).toContain('Random address on tempmail.test');
    expect(asked).toEqual([]);
    // A picker opened later (n) asks the service again: the early answer served the first one only.
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('expires in');
    await h.screen.press('n', 'y');
    await h.screen.waitFor('Random address on tempmail.test');
    expect(asked).toEqual(['list']);
  });

  it('an early request still on its way: "Loading", then its answer (not a second request); its failure offers r', async () => {
    const port = await closedPort();
    const dead = createApi({ baseUrl: `http://127.0.0.1:${port}/`, retries: 0, timeoutMs: 2000 });
    const asked: string[] = [];
    const domains = early(dead.listDomains());
    const { renderAt } = await import('../ui');
    const { App } = await import('../../../src/tui/app');
    const api: TempMailApi = {
      ...dead,
      listDomains: () => {
        asked.push('list');
        return dead.listDomains();
      },
    };
    const screen = renderAt(
      <App
        providers={singleProvider(api, `http://127.0.0.1:${port}/`)}
        domains={domains}
        settings={{ pollIntervalMs: 60_000, bell: false }}
        noColor
        onQuit={() => {}}
      />,
    );
    try {
      await screen.waitFor('Loading the domains');
      await screen.waitFor('Could not load the domains');
      expect(asked).toEqual([]);
      const svc = await startTestService({ httpPort: port });
      extra.push(svc);
      await screen.press('r');
      await screen.waitFor('Random address on tempmail.test');
      expect(asked).toEqual(['list']);
    } finally {
      screen.unmount();
    }
  });

  it('? lists the picker keys from the keymap; Esc closes the help; q quits', async () => {
    h = await startApp();
    await h.screen.waitFor('Random address on');
    await h.screen.press('?');
    // The picker's keys may take more rows than 80x24 leaves it: the help scrolls, every row reachable.
    const { text } = await readWholeHelp(h.screen, 'Keys: choosing an address');
    for (const row of helpRows('picker')) expect(text).toContain(collapsed(row.description));
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Random address on');
    await h.screen.press('q');
    expect(h.quits()).toBe(1);
  });

  it('a rate-limited create says so and stays on the picker', async () => {
    const svc = await startTestService({ createPerMinute: 1 });
    extra.push(svc);
    h = await startApp({ svc });
    await h.api.createSession({});
    await h.screen.waitFor('Random address on');
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor(/rate|too many/i);
    expect(frame).toContain('Random address on');
  });
});
