/**
 * The picker's order and first highlight (issue 26), against the real service and a real sessions.json
 * in a temp dir: the saved addresses always come first, as the docs say; opened by `n` the highlight is on
 * the first new-address choice (a new address was asked for); at start it is on the address used last,
 * which is not always the newest created.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSavedSessions, type SavedSessionStore } from '../../../src/state/saved-sessions';
import { startTestService, type TestService } from '../../harness/service';
import { startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function world(): Promise<{ svc: TestService; store: SavedSessionStore }> {
  const svc = await startTestService();
  cleanup.push(() => svc.close());
  const dir = mkdtempSync(join(tmpdir(), 'tui-picker-order-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return { svc, store: openSavedSessions({ dir }) };
}

const ADDRESS = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/;
const highlighted = (frame: string) => frame.split('\n').find((line) => line.startsWith('> ')) ?? '';
const choices = (frame: string) =>
  frame.split('\n').filter((line) => /^[> ] [1-9 ] (Resume|Random|Custom) /.test(line));

/** Enter on the highlighted choice (a new address there) and the address the inbox shows. */
async function createHighlighted(app: AppHarness): Promise<string> {
  await app.screen.waitFor((f) => /^> \d (Random|Custom)/m.test(f));
  await app.screen.press(KEY.ENTER);
  // The inbox's first row: the address and its countdown (the picker's Resume lines count down too).
  const frame = await app.screen.waitFor(
    (f) => ADDRESS.test(f.split('\n')[0] ?? '') && /expires in \d/.test(f.split('\n')[0] ?? ''),
  );
  return ADDRESS.exec(frame.split('\n')[0] ?? '')![1]!;
}

describe('the picker', () => {
  it('opened by n: the saved addresses first, the highlight on the first new-address choice', async () => {
    const { svc, store } = await world();
    h = await startApp({ svc, props: { saved: { store, serviceKey: svc.baseUrl } } });
    const first = await createHighlighted(h);
    await h.screen.press('n', 'y');
    const second = await createHighlighted(h);
    await h.screen.press('n', 'y');
    const frame = await h.screen.waitFor((f) => f.includes('Random address on') && f.includes(`Resume ${first}`));
    const lines = choices(frame);
    // The current address is not offered (Esc goes back to it); the other saved one comes first.
    expect(frame).not.toContain(`Resume ${second}`);
    expect(lines[0]).toMatch(new RegExp(`^  1 Resume ${first.replace(/\./g, '\\.')} `));
    expect(lines[1]).toMatch(/^> 2 Random address on /);
    expect(highlighted(frame)).toMatch(/Random address on/);
    // Enter makes a new one, as n asked.
    const third = await createHighlighted(h);
    expect([first, second]).not.toContain(third);
  });

  it('at start: the highlight is on the address used last, not the newest created', async () => {
    const { svc, store } = await world();
    const saved = { store, serviceKey: svc.baseUrl };
    h = await startApp({ svc, props: { saved } });
    const first = await createHighlighted(h);
    await h.screen.press('n', 'y');
    const second = await createHighlighted(h);
    // Back to the first with s: it is the one used last.
    await h.screen.press('s');
    await h.screen.waitFor('saved addresses (2)');
    await h.screen.press('2');
    await h.screen.waitFor(`No mail yet for ${first}`);
    await h.close();

    h = await startApp({ svc, props: { saved } });
    let frame = await h.screen.waitFor((f) => f.includes('Random address on') && f.includes(`Resume ${first}`));
    // Listed newest created first (the digits stay put), the highlight on the one used last.
    expect(
      choices(frame)
        .slice(0, 2)
        .map((l) => ADDRESS.exec(l)?.[1]),
    ).toEqual([second, first]);
    expect(highlighted(frame)).toContain(`2 Resume ${first}`);
    await h.screen.press(KEY.ENTER);
    frame = await h.screen.waitFor(`No mail yet for ${first}`);
    expect(frame.split('\n')[0]).toContain(first);
  });
});
