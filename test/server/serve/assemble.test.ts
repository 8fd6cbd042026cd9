/**
 * The wiring of startServer(): graceful close (a message mid-DATA still gets its 250 and is kept; idle
 * connections hear 421), and expired sessions purged at start and on the timer (clock injected, no sleep).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const tempDir = () => cleanup.tempDir('tempmail-assemble-');
/** A test service, closed after the test. */
async function started(...args: Parameters<typeof startTestService>): Promise<TestService> {
  return cleanup.defer(await startTestService(...args), (svc) => svc.close());
}

describe('startServer', () => {
  it('finishes a message in the middle of DATA when closing, and tells idle connections 421', async () => {
    const dataDir = await tempDir();
    const svc = await started({ dataDir });
    const s = (await call(svc.baseUrl, '/create-session', { form: {} })).json!;
    const idle = await openSmtp(svc);
    await idle.command('EHLO idle.test');
    const busy = await openSmtp(svc);
    await busy.command('EHLO busy.test');
    await busy.command('MAIL FROM:<a@example.org>');
    await busy.command(`RCPT TO:<${s.email}>`);
    expect(await busy.command('DATA')).toMatch(/^354/);
    busy.write(`Subject: caught in the close\r\n\r\nfirst half, `);

    const closing = svc.close();
    expect(await idle.reply()).toMatch(/^421 /);
    busy.write('second half\r\n.\r\n');
    expect(await busy.reply()).toMatch(/^250 /);
    expect(await busy.reply()).toMatch(/^421 /); // told to go, rather than kept waiting for more
    await closing;

    // Reopen the same data dir: the message answered 250 during the close is there.
    const again = await started({ dataDir });
    const list = await call(again.baseUrl, '/check-mail', { query: { token: s.token } });
    expect(list.json!.messages.map((m: { subject: string }) => m.subject)).toEqual(['caught in the close']);
  });

  it('purges expired sessions at start and on its timer', async () => {
    const dataDir = await tempDir();
    let now = Date.UTC(2031, 0, 1);
    const first = await startTestService({ dataDir, lifetimeSeconds: 60 }, { clock: () => now });
    const old = (await call(first.baseUrl, '/create-session', { form: { prefix: 'short-lived' } })).json!;
    await first.close();

    now += 120_000;
    const second = await started({ dataDir, lifetimeSeconds: 60, purgeIntervalMs: 1000 }, { clock: () => now });
    // Purged at start: the token is unknown now (401), not merely expired (410), and the name is free.
    expect((await call(second.baseUrl, '/check-mail', { query: { token: old.token } })).status).toBe(401);
    const fresh = (await call(second.baseUrl, '/create-session', { form: { prefix: 'short-lived' } })).json!;
    expect(fresh.email).toMatch(/^short-lived@/);
    expect((await call(second.baseUrl, '/check-mail', { query: { token: fresh.token } })).status).toBe(200);

    now += 120_000;
    expect((await call(second.baseUrl, '/check-mail', { query: { token: fresh.token } })).status).toBe(410);
    await waitFor(
      async () => (await call(second.baseUrl, '/check-mail', { query: { token: fresh.token } })).status === 401,
      {
        timeoutMs: 5000,
        message: 'the purge timer to remove the expired session',
      },
    );
  });

  it('refuses to start on a data dir it cannot use, with a readable error', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), 'x');
    await expect(startTestService({ dataDir: join(dir, 'file', 'data') })).rejects.toThrow(/data directory/);
  });
});
