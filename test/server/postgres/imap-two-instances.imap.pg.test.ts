/**
 * Two `serve` instances on one database, one external account on a real Dovecot: exactly one instance
 * fetches it (the other stands by, and still offers it), each message is stored once, and when the
 * fetching instance is killed (kill -9) the other takes over and fetches what arrives next. The password
 * comes by passwordEnv, as a deployment gives it, and reaches neither instance's log.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot } from '../../harness/dovecot/dovecot';
import { appendMail, message } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import type { ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const user = { name: 'shared', password: 'pw-shared-Tw0-instances' };
let dovecot: Dovecot;

beforeAll(async () => {
  dovecot = await startDovecot({ users: [user] });
});
afterAll(async () => {
  await dovecot?.remove();
});

const fetching = (p: ServeReady) => p.stderr().includes('imap shared@ext.test: active');
const standingBy = (p: ServeReady) =>
  p.stderr().includes('imap shared@ext.test: another instance on the database fetches this account');

async function subjects(p: ServeReady, token: string): Promise<string[]> {
  const r = await call(p.baseUrl, 'check-mail', { query: { token } });
  return (r.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

describe('an external account fetched by one of two instances on one database', () => {
  it('is fetched by one instance at a time, and by the other once the first is killed', async () => {
    const { url } = await freshDatabase(cleanup);
    const dir = await cleanup.tempDir('tempmail-imap-two-');
    const config = join(dir, 'serve.json');
    await writeFile(
      config,
      JSON.stringify({
        domains: ['tempmail.test'],
        extmailAccounts: [
          {
            email: 'shared@ext.test',
            imap: {
              host: dovecot.host,
              port: dovecot.port,
              tls: 'none',
              user: user.name,
              passwordEnv: 'SHARED_IMAP_PASSWORD',
              pollSeconds: 1,
            },
          },
        ],
      }),
    );
    const env = { SHARED_IMAP_PASSWORD: user.password };
    const [a, b] = await Promise.all([
      startInstance(cleanup, url, ['--config', config], env),
      startInstance(cleanup, url, ['--config', config], env),
    ]);
    await waitFor(() => (fetching(a!) && standingBy(b!)) || (fetching(b!) && standingBy(a!)), {
      timeoutMs: 20_000,
      message: 'one instance to fetch and the other to stand by',
    });
    const [holder, other] = fetching(a!) ? [a!, b!] : [b!, a!];
    // Both offer the account: the one standing by has not seen it fail.
    for (const p of [holder, other]) {
      const r = await call(p.baseUrl, 'domains');
      expect((r.json!.extmail_accounts as { email: string }[]).map((x) => x.email)).toEqual(['shared@ext.test']);
    }

    const created = await call(other.baseUrl, 'create-session', { form: { use_extmail: 1, prefix: 'handover' } });
    const { email, token } = created.json as { email: string; token: string };
    await appendMail(dovecot, user, message({ To: email, Subject: 'before the kill' }));
    await waitFor(async () => (await subjects(other, token)).length === 1, {
      timeoutMs: 15_000,
      message: 'the first message',
    });
    // The holder logs the fetch once its store call returns, which can be after the other lists the message.
    const stored = /imap stored \d+ bytes from sender@example\.org for shared\+handover@ext\.test/;
    await waitFor(() => stored.test(holder.stderr()), { timeoutMs: 15_000, message: "the holder's log of the fetch" });
    expect(other.stderr()).not.toContain('imap stored');

    holder.child.kill('SIGKILL');
    expect((await holder.exited).signal).toBe('SIGKILL');
    await waitFor(() => fetching(other), { timeoutMs: 20_000, message: 'the other instance to take over' });
    await appendMail(dovecot, user, message({ To: email, Subject: 'after the kill' }));
    await waitFor(async () => (await subjects(other, token)).length === 2, {
      timeoutMs: 15_000,
      message: 'the message after the kill',
    });
    expect(await subjects(other, token)).toEqual(['after the kill', 'before the kill']);
    for (const p of [holder, other]) expect(p.stderr()).not.toContain(user.password);
  });

  it('is offered by neither instance while the fetching one cannot log in: the other follows its report', async () => {
    const { url } = await freshDatabase(cleanup);
    const dir = await cleanup.tempDir('tempmail-imap-two-');
    const config = join(dir, 'serve.json');
    await writeFile(
      config,
      JSON.stringify({
        extmailAccounts: [
          {
            email: 'shared@ext.test',
            imap: {
              host: dovecot.host,
              port: dovecot.port,
              tls: 'none',
              user: user.name,
              passwordEnv: 'SHARED_IMAP_PASSWORD',
              pollSeconds: 1,
            },
          },
        ],
      }),
    );
    const wrong = 'Not-The-Password-42';
    const env = { SHARED_IMAP_PASSWORD: wrong };
    const [a, b] = await Promise.all([
      startInstance(cleanup, url, ['--config', config], env),
      startInstance(cleanup, url, ['--config', config], env),
    ]);
    const offered = async (p: ServeReady) =>
      ((await call(p.baseUrl, 'domains')).json!.extmail_accounts as unknown[]).length;
    await waitFor(async () => (await offered(a!)) === 0 && (await offered(b!)) === 0, {
      timeoutMs: 20_000,
      message: 'neither instance to offer the account',
    });
    const [holder, other] = a!
      .stderr()
      .includes('imap shared@ext.test: inactive (not offered by GET /domains): login refused')
      ? [a!, b!]
      : [b!, a!];
    expect(holder.stderr()).toMatch(
      /imap shared@ext\.test: inactive \(not offered by GET \/domains\): login refused by 127\.0\.0\.1:\d+/,
    );
    await waitFor(
      () =>
        other
          .stderr()
          .includes(
            'imap shared@ext.test: inactive (not offered by GET /domains), as the instance fetching it reports: login refused',
          ),
      {
        timeoutMs: 10_000,
        message: 'the instance standing by to log the report',
      },
    );
    for (const p of [holder, other]) expect(p.stderr()).not.toContain(wrong);
  });
});
