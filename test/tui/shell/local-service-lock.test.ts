/**
 * Local mode on a data dir that a running service has locked: the app uses that service (its URL and
 * SMTP target, read from service.lock and checked with GET /health) instead of starting a second one
 * on the same dir; a lock whose service does not answer is a clear error.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { LOCK_FILE } from '../../../src/platform/data-lock';
import { startLocalService } from '../../../src/tui/shell/local-service';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { closedPort } from '../../harness/ports';

const cleanup = cleanupAfterEach();

describe('startLocalService on a locked data dir', () => {
  it('uses the serve already running on TEMPMAIL_TUI_HOME: its URL and SMTP target, and leaves it running', async () => {
    const home = await cleanup.tempDir('tempmail-local-lock-');
    const env = { TEMPMAIL_TUI_HOME: home };
    // No --data-dir: serve and the app both default to $TEMPMAIL_TUI_HOME/data.
    const serve = cleanup.defer(await startServeProcess([], env), (p) => stopServe(p, 'SIGKILL'));

    const local = await startLocalService(env, [0]);
    expect(local).toMatchObject({
      httpUrl: serve.baseUrl,
      smtpHost: serve.smtpHost,
      smtpPort: serve.smtpPort,
      sharedPid: serve.child.pid,
    });
    const api = createApi({ baseUrl: local.httpUrl });
    const session = await api.createSession({ prefix: 'shared-one' });
    await sendMail(local, { to: session.email, subject: 'through the shared service', text: 'hi' });
    expect((await api.checkMail(session.token)).map((m) => m.subject)).toEqual(['through the shared service']);

    // Closing the app's side does not stop the service it borrowed.
    await local.close();
    expect((await call(serve.baseUrl, '/health')).status).toBe(200);
    expect(await stopServe(serve)).toEqual({ code: 0, signal: null });
  });

  it('says so clearly when the service named by the lock does not answer', async () => {
    const home = await cleanup.tempDir('tempmail-local-lock-');
    // A live process that is not a service: its pid keeps the lock live, nothing answers at the URL.
    const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    cleanup.defer(idle, (child) => child.kill('SIGKILL'));
    const port = await closedPort();
    const httpUrl = `http://127.0.0.1:${port}/`;
    await mkdir(join(home, 'data'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(home, 'data', LOCK_FILE),
      JSON.stringify({
        pid: idle.pid,
        startedAt: new Date().toISOString(),
        httpUrl,
        smtpHost: '127.0.0.1',
        smtpPort: port,
      }),
      { mode: 0o600 },
    );
    await expect(startLocalService({ TEMPMAIL_TUI_HOME: home }, [0])).rejects.toThrow(
      `the data dir ${join(home, 'data')} is in use by a tempmail-tui service (pid ${idle.pid}, ${httpUrl}) that does not answer; ` +
        'stop it, or point the app at a service with --base-url',
    );
  });
});
