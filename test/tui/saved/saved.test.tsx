/**
 * Saved addresses in the app, against the real service and a real sessions.json in a temp dir: every
 * created address is saved, the picker offers the live ones first with their remaining time (expired
 * ones pruned), `s` switches between them, `x` forgets one after asking.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { openSavedSessions, type SavedSessionStore } from '../../../src/state/saved-sessions';
import { helpRows } from '../../../src/tui/keymap/keymap';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { joined, KEY } from '../ui';
import { closedPort } from '../../harness/ports';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

function tempStore(): { store: SavedSessionStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tui-saved-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return { store: openSavedSessions({ dir }), dir };
}

async function service(): Promise<TestService> {
  const svc = await startTestService();
  cleanup.push(() => svc.close());
  return svc;
}

const ADDRESS = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/;

/** Creates an address from the picker line numbered `line` (1-based) and returns it. */
async function create(app: AppHarness, line: number): Promise<string> {
  await app.screen.waitFor('Random address on');
  await app.screen.press(String(line));
  const frame = await app.screen.waitFor(/expires in \d/);
  return ADDRESS.exec(frame.split('\n')[0] ?? '')![1]!;
}

describe('saved addresses', () => {
  it('saves every created address (token, expiry, service); the next start offers the live ones first, expired ones pruned', async () => {
    const svc = await service();
    const { store } = tempStore();
    // Left from earlier: one expired, one of another service. Neither may be offered.
    store.save(
      { email: 'gone@tempmail.test', token: 'old-token-1', expiresAt: new Date(Date.now() - 1000) },
      svc.baseUrl,
    );
    store.save(
      { email: 'elsewhere@other.test', token: 'other-token', expiresAt: new Date(Date.now() + 3_600_000) },
      'http://other.example/',
    );
    const saved = { store, serviceKey: svc.baseUrl };

    h = await startApp({ svc, props: { saved } });
    const first = await create(h, 1);
    const list = store.listLive(new Date(), svc.baseUrl);
    expect(list.map((s) => s.email)).toEqual([first]);
    expect(list[0]!.token).toBe(h.tokens[0]);
    expect(list[0]!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(store.file, 'utf8')).not.toContain('gone@tempmail.test');
    // A second one, from the picker opened by n (the current one is not offered: 1 is a new choice).
    await h.screen.press('n', 'y');
    let frame = await h.screen.waitFor('Random address on');
    expect(frame).not.toContain(`Resume ${first}`); // the current one: Esc goes back to it
    const second = await create(h, 1);
    expect(second).not.toBe(first);
    expect(store.listLive(new Date(), svc.baseUrl).map((s) => s.email)).toEqual([second, first]);
    await h.close();

    // A new start: both offered first, newest first, with their remaining time; nothing else.
    h = await startApp({ svc, props: { saved } });
    frame = await h.screen.waitFor('Random address on');
    const lines = frame.split('\n');
    const resume = lines.findIndex((l) => l.includes(`Resume ${second} (expires in `));
    expect(resume).toBeGreaterThan(0);
    expect(lines[resume + 1]).toMatch(
      new RegExp(`Resume ${first.replace('.', '\\.')} \\(expires in (59|60|5\\d):\\d\\d\\)`),
    );
    expect(lines.findIndex((l) => l.includes('Random address on'))).toBe(resume + 2);
    expect(frame).not.toContain('gone@');
    expect(frame).not.toContain('elsewhere@');
    // Resuming the older one: its inbox, with mail sent to it.
    await h.screen.press('2');
    await h.screen.waitFor(`No mail yet for ${first}`);
    await sendMail(svc, { to: first, subject: 'Welcome back', text: 'hi' });
    await h.screen.press('r');
    await h.screen.waitFor('Welcome back');
    for (const s of store.listLive(new Date(), svc.baseUrl))
      expect(h.screen.frames.some((f) => f.includes(s.token))).toBe(false);
  });

  it('s lists the saved addresses with their remaining time and switches; Esc goes back', async () => {
    const svc = await service();
    const { store } = tempStore();
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    const first = await create(h, 1);
    await sendMail(svc, { to: first, subject: 'For the first one', text: 'one' });
    await h.screen.press('r');
    await h.screen.waitFor('For the first one');
    await h.screen.press('n', 'y');
    const second = await create(h, 1);
    await h.screen.waitFor(`No mail yet for ${second}`);

    await h.screen.press('s');
    let frame = await h.screen.waitFor('saved addresses (2)');
    expect(frame).toMatch(new RegExp(`1  ${second.replace('.', '\\.')} +expires in \\d+:\\d\\d  \\(current\\)`));
    expect(frame).toMatch(new RegExp(`2  ${first.replace('.', '\\.')} +expires in \\d+:\\d\\d`));
    expect(frame).toContain('Enter choose');
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(`No mail yet for ${second}`);

    await h.screen.press('s');
    await h.screen.waitFor('saved addresses (2)');
    await h.screen.press('j', KEY.ENTER);
    frame = await h.screen.waitFor('For the first one');
    expect(frame.split('\n')[0]).toContain(first);
    // And back by number.
    await h.screen.press('s');
    await h.screen.waitFor('saved addresses (2)');
    await h.screen.press('1');
    frame = await h.screen.waitFor(`No mail yet for ${second}`);
    expect(frame.split('\n')[0]).toContain(second);
    expect(h.tokenNeverShown()).toBe(true);
  });

  it('x forgets: in the switcher the highlighted one (asks), in the inbox the current one, then the picker', async () => {
    const svc = await service();
    const { store } = tempStore();
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    const first = await create(h, 1);
    await h.screen.press('n', 'y');
    const second = await create(h, 1);

    await h.screen.press('s');
    await h.screen.waitFor('saved addresses (2)');
    await h.screen.press('j', 'x');
    await h.screen.waitFor((f) =>
      joined(f).includes(`Forget ${first}? It cannot be reopened. y = yes, any other key = no`),
    );
    await h.screen.press('n');
    await h.screen.waitFor('Enter choose');
    expect(store.listLive(new Date(), svc.baseUrl)).toHaveLength(2);
    await h.screen.press('x', 'y');
    let frame = await h.screen.waitFor('saved addresses (1)');
    expect(frame).toContain(`Forgot ${first}`);
    expect(store.listLive(new Date(), svc.baseUrl).map((s) => s.email)).toEqual([second]);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(`No mail yet for ${second}`);

    await h.screen.press('x');
    await h.screen.waitFor(`Forget ${second}?`);
    await h.screen.press('y');
    frame = await h.screen.waitFor('Random address on');
    expect(frame).toContain(`Forgot ${second}`);
    expect(frame).not.toContain('Resume');
    expect(store.listLive(new Date(), svc.baseUrl)).toEqual([]);
  });

  it('x in the picker forgets the highlighted saved address after asking; on a new-address line it says what x is for', async () => {
    const svc = await service();
    const { store } = tempStore();
    const api = createApi({ baseUrl: svc.baseUrl });
    const older = await api.createSession();
    const newer = await api.createSession();
    store.save(older, svc.baseUrl);
    store.save(newer, svc.baseUrl);
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    expect(await h.screen.waitFor('Random address on')).toContain('x forget');
    await h.screen.press('j', 'x'); // the second line: the older address
    await h.screen.waitFor((f) =>
      joined(f).includes(`Forget ${older.email}? It cannot be reopened. y = yes, any other key = no`),
    );
    await h.screen.press('n');
    await h.screen.waitFor('Cancelled');
    expect(store.listLive(new Date(), svc.baseUrl)).toHaveLength(2);
    await h.screen.press('x', 'y');
    const frame = await h.screen.waitFor(`Forgot ${older.email}`);
    expect(frame).not.toContain(`Resume ${older.email}`);
    expect(frame).toContain(`Resume ${newer.email}`);
    expect(store.listLive(new Date(), svc.baseUrl).map((s) => s.email)).toEqual([newer.email]);
    // The list starts again at its top: the remaining saved address, then a line that is not saved.
    await h.screen.press('j', 'x');
    await h.screen.waitFor('x forgets a saved address');
    expect(store.listLive(new Date(), svc.baseUrl)).toHaveLength(1);
    // Enter still works after all that: the highlighted line is what x looked at.
    await h.screen.press('k', KEY.ENTER);
    await h.screen.waitFor(`No mail yet for ${newer.email}`);
  });

  it('? in the switcher lists its keys from the keymap; Esc closes the help, then the switcher', async () => {
    const svc = await service();
    const { store } = tempStore();
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    const address = await create(h, 1);
    await h.screen.press('s');
    await h.screen.waitFor('saved addresses (1)');
    await h.screen.press('?');
    const frame = await h.screen.waitFor('Keys: saved addresses');
    for (const row of helpRows('switch')) expect(frame).toContain(row.description.slice(0, 40));
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Enter choose');
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(`No mail yet for ${address}`);
  });

  it('a saved address can be resumed while the service cannot list its domains', async () => {
    const svc = await service();
    const { store } = tempStore();
    const session = await createApi({ baseUrl: svc.baseUrl }).createSession();
    store.save(session, svc.baseUrl);
    const down = await closedPort();
    const dead = `http://127.0.0.1:${down}/`;
    store.save({ ...session, email: `down-${session.email}` }, dead);
    h = await startApp({
      svc,
      wrapApi: () => createApi({ baseUrl: dead, retries: 0, timeoutMs: 1000 }),
      props: { saved: { store, serviceKey: dead } },
    });
    const frame = await h.screen.waitFor('Could not load the domains');
    expect(frame).toContain(`Resume down-${session.email} (expires in`);
    expect(frame).not.toContain(`Resume ${session.email}`);
    await h.screen.press('1');
    await h.screen.waitFor(/Offline, retrying in \d+ s: The service is unreachable/);
    expect(h.screen.frame().split('\n')[0]).toContain(`down-${session.email}`);
  });

  it('a store that cannot be read or written is said on the status line, reason first; the address still works', async () => {
    const svc = await service();
    // A "directory" that is a file: every write fails.
    const { dir } = tempStore();
    const blocked = join(dir, 'not-a-dir');
    writeFileSync(blocked, 'x');
    const store = openSavedSessions({ dir: join(blocked, 'state') });
    // The reason leads (a status line of its own starts with it) and the (long, temporary) path comes last.
    const leads = (f: string, reason: string) =>
      f.split('\n').some((line) => line.startsWith(reason)) && joined(f).includes(`${reason} (/`);
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    await h.screen.waitFor((f) => leads(f, 'Saved addresses could not be read: a part of the path is not a directory'));
    const address = await create(h, 1);
    await h.screen.waitFor((f) => leads(f, 'Address not saved: a part of the path is not a directory'));
    await sendMail(svc, { to: address, subject: 'Still arrives', text: 'ok' });
    await h.screen.press('r');
    await h.screen.waitFor('Still arrives');
  });
});
