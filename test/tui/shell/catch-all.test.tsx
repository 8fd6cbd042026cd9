/**
 * Local mode's catch-all in the app (issue 37.9): mail to a name nobody made makes its inbox; the app
 * saves it like an address it created, says so, and `s` lists it and opens it with its mail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import type { LocalServiceInfo } from '../../../src/tui/shell/shell-types';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
let svc: TestService | undefined;
const dirs: string[] = [];
closeAppsAfterEach(async () => {
  await svc?.close();
  svc = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Made = Parameters<Parameters<NonNullable<LocalServiceInfo['onCatchAll']>>[0]>[0];

describe('catch-all in local mode', () => {
  it('an inbox made by mail is saved, said, listed by s and opened with its mail', async () => {
    const listeners = new Set<(made: Made) => void>();
    svc = await startTestService(
      { catchAll: true },
      {
        onCatchAll: (made) => {
          for (const l of listeners) l(made);
        },
      },
    );
    const dir = mkdtempSync(join(tmpdir(), 'tui-catch-all-'));
    dirs.push(dir);
    const store = openSavedSessions({ dir });
    const local: LocalServiceInfo = {
      smtpHost: svc.smtpHost,
      smtpPort: svc.smtpPort,
      onCatchAll: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    h = await startApp({ svc, props: { local, saved: { store, serviceKey: svc.baseUrl } } });
    const mine = await pickFirstDomain(h);
    const domain = mine.slice(mine.indexOf('@') + 1);
    const other = `app-under-test@${domain}`;
    await sendMail(svc, { to: other, subject: 'Welcome to the app under test', text: 'Your code is 551204.' });
    await h.screen.waitFor(`Mail came for ${other}, so its inbox was made: s lists it`);
    expect(store.listLive(new Date(), svc.baseUrl).map((s) => s.email)).toContain(other);
    await h.screen.press('s');
    const frame = await h.screen.waitFor('saved addresses (2)');
    const line = frame.split('\n').find((l) => l.includes(other));
    const n = /^\s*(\d)/.exec(line ?? '')?.[1];
    expect(n).toBeDefined();
    await h.screen.press(n!);
    await h.screen.waitFor('Welcome to the app under test');
    expect(h.tokenNeverShown()).toBe(true);
    await h.screen.press(KEY.ESC);
  });
});
