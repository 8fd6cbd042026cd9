/**
 * Two app windows in local mode share one service: the first runs it, the second borrows it. When the
 * one running it goes (the first window quits, or a `serve` it borrowed from stops or is killed), the
 * borrower takes the service over on the same data dir and, where they are free, the same HTTP and SMTP
 * ports, so its client and the SMTP target it shows stay right, and the mail stored before is all there.
 * Real services, real SMTP, real HTTP; the takeover is noticed by the borrower itself.
 */
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { startLocalService, type LocalService } from '../../../src/tui/shell/local-service';
import { readDataDirLock } from '../../../src/platform/data-lock';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { join } from 'node:path';

const cleanup = cleanupAfterEach();
const started = async (env: NodeJS.ProcessEnv) => cleanup.defer(await startLocalService(env, [0]), (l) => l.close());
const subjects = async (local: LocalService, token: string) =>
  (await createApi({ baseUrl: local.httpUrl }).checkMail(token)).map((m) => m.subject);

describe('local mode when the service it borrowed goes away', () => {
  it('the borrower takes over on the same ports, keeps every message, and receives new mail over SMTP', async () => {
    const home = await cleanup.tempDir('tempmail-takeover-');
    const env = { TEMPMAIL_TUI_HOME: home };
    const first = await started(env);
    const second = await started(env);
    expect(first.sharedPid).toBeUndefined();
    expect(second).toMatchObject({ httpUrl: first.httpUrl, smtpPort: first.smtpPort, sharedPid: process.pid });
    const changes: string[] = [];
    second.onChange(() => changes.push(`${second.sharedPid ?? 'own'} ${second.httpUrl} ${second.smtpPort}`));

    const api = createApi({ baseUrl: second.httpUrl });
    const box = await api.createSession({ prefix: 'handed-over' });
    // The news of new mail: the first window hears it (its own service); the borrower cannot, until it
    // runs the service itself.
    const news = { first: 0, second: 0, states: [] as boolean[] };
    first.watchInbox(box.token, { onMail: () => news.first++, onState: () => undefined });
    second.watchInbox(box.token, { onMail: () => news.second++, onState: (live) => news.states.push(live) });
    await sendMail(second, { to: box.email, subject: 'before the first quit', text: '1' });
    expect(news).toEqual({ first: 1, second: 0, states: [false] });
    const { httpUrl, smtpPort } = second;

    await first.close();
    await waitFor(() => second.sharedPid === undefined, {
      timeoutMs: 10_000,
      message: 'the borrower to take the service over',
    });
    expect(changes).toEqual([`own ${httpUrl} ${smtpPort}`]);
    expect(second).toMatchObject({ httpUrl, smtpPort });
    expect((await readDataDirLock(join(home, 'data')))?.httpUrl).toBe(httpUrl);
    // The client made before the takeover still works, and finds what the first service stored.
    expect((await call(httpUrl, '/health')).status).toBe(200);
    // Taken over: the watch is live, was asked to look once (mail may have come while it changed
    // hands), and hears the next message itself.
    expect(news).toEqual({ first: 1, second: 1, states: [false, true] });
    await sendMail(second, { to: box.email, subject: 'after the first quit', text: '2' });
    expect(news.second).toBe(2);
    expect((await api.checkMail(box.token)).map((m) => m.subject)).toEqual([
      'after the first quit',
      'before the first quit',
    ]);
  });

  it('of three windows, exactly one takes over and the other borrows from it; and again when that one quits', async () => {
    const home = await cleanup.tempDir('tempmail-takeover-');
    const env = { TEMPMAIL_TUI_HOME: home };
    const first = await started(env);
    const box = await createApi({ baseUrl: first.httpUrl }).createSession({ prefix: 'three-ways' });
    await sendMail(first, { to: box.email, subject: 'kept through two handovers', text: '1' });
    const others = [await started(env), await started(env)];
    await first.close();
    await waitFor(() => others.some((o) => o.sharedPid === undefined), {
      timeoutMs: 10_000,
      message: 'one to take over',
    });
    const owner = others.find((o) => o.sharedPid === undefined)!;
    const borrower = others.find((o) => o !== owner)!;
    await waitFor(() => borrower.httpUrl === owner.httpUrl && borrower.sharedPid === process.pid, {
      timeoutMs: 10_000,
      message: 'the other to borrow from it',
    });
    expect(borrower.smtpPort).toBe(owner.smtpPort);

    await owner.close();
    await waitFor(() => borrower.sharedPid === undefined, { timeoutMs: 10_000, message: 'the last one to take over' });
    expect(await subjects(borrower, box.token)).toEqual(['kept through two handovers']);
  });

  it('takes over from a serve it borrowed that was killed (kill -9: the lock stays, its process is gone)', async () => {
    const home = await cleanup.tempDir('tempmail-takeover-');
    const env = { TEMPMAIL_TUI_HOME: home };
    const serve = cleanup.defer(await startServeProcess([], env), (p) => stopServe(p, 'SIGKILL'));
    const local = await started(env);
    expect(local.sharedPid).toBe(serve.child.pid);
    const box = await createApi({ baseUrl: local.httpUrl }).createSession({ prefix: 'after-a-kill' });
    await sendMail(local, { to: box.email, subject: 'stored by serve', text: '1' });
    serve.child.kill('SIGKILL');
    await serve.exited;
    await waitFor(() => local.sharedPid === undefined, { timeoutMs: 10_000, message: 'the app to take over' });
    expect(local).toMatchObject({ httpUrl: serve.baseUrl, smtpPort: serve.smtpPort });
    await sendMail(local, { to: box.email, subject: 'stored by the app', text: '2' });
    expect(await subjects(local, box.token)).toEqual(['stored by the app', 'stored by serve']);
  });
});
