/**
 * A saved address the service no longer knows (its data wiped, or another service on the same URL):
 * resuming it stops polling with "no longer knows", the saved file marks it, and the picker and the
 * switcher list it last with a note instead of offering it like a good one. A later good check (a
 * restored service) clears the mark. Real service, real sessions.json in a temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { startTestService, type TestService } from '../../harness/service';
import { startApp, type AppHarness, closeAppsAfterEach } from '../harness';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function setup() {
  const svc: TestService = await startTestService();
  cleanup.push(() => svc.close());
  const dir = mkdtempSync(join(tmpdir(), 'tui-refused-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = openSavedSessions({ dir });
  const api = createApi({ baseUrl: svc.baseUrl, retries: 0 });
  const domain = (await api.listDomains()).domains[0]!;
  const good = await api.createSession({ domainId: domain.id });
  store.save(good, svc.baseUrl);
  // A token this service never issued, for an address on its domain, not yet expired: what a wiped
  // data dir leaves in sessions.json. Saved last, so it is the newest and listed first.
  const wiped = {
    email: `wiped@${domain.domain}`,
    token: 'x'.repeat(43),
    expiresAt: new Date(Date.now() + 30 * 60_000),
  };
  store.save(wiped, svc.baseUrl);
  return { svc, store, good, wiped, saved: { store, serviceKey: svc.baseUrl } };
}

describe('a saved address the service refuses', () => {
  it('is marked when resuming it gets 401, then listed last with a note in the picker and the switcher', async () => {
    const { svc, store, good, wiped, saved } = await setup();
    // Wide enough for the switcher's whole row (at 80 columns its note is cut at the edge).
    h = await startApp({ svc, props: { saved }, columns: 110 });
    let frame = await h.screen.waitFor('Random address on');
    const lines = frame.split('\n');
    expect(lines.findIndex((l) => l.includes(`Resume ${wiped.email}`))).toBeLessThan(
      lines.findIndex((l) => l.includes(`Resume ${good.email}`)),
    );

    await h.screen.press('1');
    await h.screen.waitFor('The service no longer knows this address');
    const marked = store.listLive(new Date(), svc.baseUrl).find((s) => s.email === wiped.email)!;
    expect(marked.refusedAt).toBeInstanceOf(Date);
    expect(Math.abs(marked.refusedAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(store.listLive(new Date(), svc.baseUrl).find((s) => s.email === good.email)!.refusedAt).toBeUndefined();

    // The switcher keeps its order (newest first) and says which one was refused.
    await h.screen.press('s');
    frame = await h.screen.waitFor('saved addresses (2)');
    expect(frame).toMatch(/wiped@\S+ +expires in \d+:\d\d {2}\(current\) · unknown to the service at \d\d:\d\d:\d\d/);
    expect(frame).not.toMatch(new RegExp(`${good.email.replace('.', '\\.')}.*unknown to the service`));
    await h.screen.press('q');

    // Not live: n goes straight to the picker (which leaves out the current one, Esc goes back to it).
    await h.screen.press('n');
    frame = await h.screen.waitFor(`Resume ${good.email}`);
    expect(frame).not.toContain(`Resume ${wiped.email}`);
    expect(h.screen.frames.some((f) => f.includes(wiped.token) || f.includes(good.token))).toBe(false);
    await h.close();

    // The next start: the refused one comes after the good one, though it is newer, and says why.
    h = await startApp({ svc, props: { saved } });
    frame = await h.screen.waitFor(`Resume ${wiped.email}`);
    const after = frame.split('\n');
    const goodLine = after.findIndex((l) => l.includes(`Resume ${good.email} (expires in `));
    const wipedLine = after.findIndex((l) => l.includes(`Resume ${wiped.email} (expires in `));
    expect(goodLine).toBeGreaterThan(0);
    expect(wipedLine).toBe(goodLine + 1);
    expect(after[wipedLine]).toMatch(/· unknown to the service at \d\d:\d\d:\d\d\)/);
    expect(after[goodLine]).not.toContain('unknown to the service');
    expect(h.screen.frames.some((f) => f.includes(wiped.token) || f.includes(good.token))).toBe(false);
  });

  it('a good check clears the mark (a restored service knows it again)', async () => {
    const { svc, store, good, saved } = await setup();
    store.markRefused(good.email, svc.baseUrl, new Date(Date.now() - 60_000));
    h = await startApp({ svc, props: { saved } });
    let frame = await h.screen.waitFor(/Resume .*unknown to the service/);
    const lines = frame.split('\n');
    const n = lines.filter((l) => l.includes('Resume ')).findIndex((l) => l.includes(good.email)) + 1;
    expect(n).toBe(2); // the unmarked one first
    await h.screen.press(String(n));
    await h.screen.waitFor(`No mail yet for ${good.email}`);
    await h.screen.waitFor(
      () => store.listLive(new Date(), svc.baseUrl).find((s) => s.email === good.email)?.refusedAt === undefined,
    );
    expect(readFileSync(store.file, 'utf8')).not.toMatch(
      new RegExp(`"${good.email.replace('.', '\\.')}"[^}]*refusedAt`),
    );
    await h.screen.press('n', 'y');
    frame = await h.screen.waitFor('Random address on');
    expect(frame).not.toContain('unknown to the service');
  });
});
