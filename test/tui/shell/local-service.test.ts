import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { portFree, SMTP_PORTS, startLocalService, type LocalService } from '../../../src/tui/shell/local-service';
import { sendMail } from '../../harness/service';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function occupy(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as { port: number }).port, server };
}

describe('local service', () => {
  it('tries 2525 to 2535, then any free port', () => {
    expect(SMTP_PORTS.slice(0, 11)).toEqual([2525, 2526, 2527, 2528, 2529, 2530, 2531, 2532, 2533, 2534, 2535]);
    expect(SMTP_PORTS.at(-1)).toBe(0);
  });

  it('skips a busy SMTP port, keeps its data in the given home, and receives mail end to end', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tui-local-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const busy = await occupy();
    expect(await portFree(busy.port)).toBe(false);
    const local: LocalService = await startLocalService({ TEMPMAIL_TUI_HOME: home }, [busy.port, 0]);
    cleanups.push(() => local.close());
    expect(local.smtpHost).toBe('127.0.0.1');
    expect(local.smtpPort).not.toBe(busy.port);
    expect(local.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const api = createApi({ baseUrl: local.httpUrl });
    const session = await api.createSession({});
    await sendMail(local, { to: session.email, subject: 'Local hello', text: 'hi' });
    const list = await api.checkMail(session.token);
    expect(list.map((m) => m.subject)).toEqual(['Local hello']);
  });

  it("has no per-client limits: an app under test on this machine may create and mail past a public instance's limits", async () => {
    const home = mkdtempSync(join(tmpdir(), 'tui-local-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const local: LocalService = await startLocalService({ TEMPMAIL_TUI_HOME: home }, [0]);
    cleanups.push(() => local.close());
    const api = createApi({ baseUrl: local.httpUrl, retries: 0 });
    // serve's defaults: 30 addresses and 300 messages a minute from one client.
    const sessions = [];
    for (let i = 0; i < 35; i += 1) sessions.push(await api.createSession({}));
    const to = sessions[0]!.email;
    for (let i = 0; i < 320; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) => sendMail(local, { to, subject: `Load ${i + k}`, text: 'hi' })),
      );
    }
    expect(await api.checkMail(sessions[0]!.token)).toHaveLength(320);
  }, 60_000);

  it('catch-all: mail to any name at the local domains makes its inbox, and the app is told its token', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tui-local-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const local: LocalService = await startLocalService({ TEMPMAIL_TUI_HOME: home }, [0]);
    cleanups.push(() => local.close());
    const made: { email: string; token: string }[] = [];
    cleanups.push(local.onCatchAll((m) => made.push(m)));
    const api = createApi({ baseUrl: local.httpUrl });
    const { domains } = await api.listDomains();
    const to = `app-under-test@${domains[0]!.domain}`;
    await sendMail(local, { to, subject: 'First', text: 'one' });
    // A plus tag and another case reach the same inbox, made once.
    await sendMail(local, { to: `App-Under-Test+signup@${domains[0]!.domain}`, subject: 'Second', text: 'two' });
    expect(made.map((m) => m.email)).toEqual([to]);
    const list = await api.checkMail(made[0]!.token);
    expect(list.map((m) => m.subject).sort()).toEqual(['First', 'Second']);
    // Another domain is still refused.
    await expect(sendMail(local, { to: 'someone@elsewhere.example', subject: 'x', text: 'x' })).rejects.toThrow(
      /550|recipient/i,
    );
  });
});
