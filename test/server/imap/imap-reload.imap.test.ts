/**
 * SIGHUP with IMAP accounts, against a throwaway Dovecot and the built `serve`: an account added to the
 * config file is fetched from at once, the account that was there goes on from its cursor (nothing
 * fetched twice, nothing missed while the fetchers were handed over), and one taken out is no longer
 * offered. The password is read from its file, and never reaches the log.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot, type DovecotUser } from '../../harness/dovecot/dovecot';
import { appendMail, message } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const users: DovecotUser[] = ['kept', 'added'].map((name) => ({ name, password: `pw-${name}-R3load!` }));
let dovecot: Dovecot;

beforeAll(async () => {
  dovecot = await startDovecot({ users });
});
afterAll(async () => {
  await dovecot?.remove();
});

async function accountFor(dir: string, user: DovecotUser) {
  const passwordFile = join(dir, `${user.name}-password`);
  await writeFile(passwordFile, `${user.password}\n`, { mode: 0o600 });
  return {
    email: `${user.name}@ext.test`,
    imap: { host: dovecot.host, port: dovecot.port, tls: 'none', user: user.name, passwordFile, pollSeconds: 1 },
  };
}

async function alias(proc: ServeReady, extmailId: number) {
  const r = await call(proc.baseUrl, '/create-session', { form: { extmail_id: extmailId } });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return { email: r.json!.email as string, token: r.json!.token as string };
}

async function subjects(proc: ServeReady, token: string): Promise<string[]> {
  const r = await call(proc.baseUrl, '/check-mail', { query: { token } });
  return (r.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

const waitSubjects = (proc: ServeReady, token: string, expected: string[], what: string) =>
  waitFor(async () => JSON.stringify(await subjects(proc, token)) === JSON.stringify([...expected].sort()), {
    timeoutMs: 20_000,
    message: what,
  });

const offered = async (proc: ServeReady) =>
  ((await call(proc.baseUrl, '/domains')).json!.extmail_accounts as { email: string }[]).map((a) => a.email);

/** SIGHUP, then `meanwhile` at once (while the reload runs), then the reload's lines once `until` is among them. */
async function hangup(proc: ServeReady, until: RegExp, meanwhile?: () => Promise<unknown>): Promise<string> {
  const before = proc.stderr().length;
  proc.child.kill('SIGHUP');
  await meanwhile?.();
  return waitFor(
    () => {
      const said = proc.stderr().slice(before);
      return until.test(said) ? said : undefined;
    },
    { message: `the reload to log ${until}` },
  );
}

describe('serve reloads its IMAP accounts on SIGHUP', () => {
  it('fetches from an account added, goes on from its cursor with the one kept, and stops offering one taken out', async () => {
    const dir = await cleanup.tempDir('tempmail-imap-reload-');
    const [kept, added] = [await accountFor(dir, users[0]!), await accountFor(dir, users[1]!)];
    const file = join(dir, 'serve.json');
    await writeFile(file, JSON.stringify({ domains: ['tempmail.test'], extmailAccounts: [kept] }));
    const proc = cleanup.defer(await startServeProcess(['--config', file, '--data-dir', join(dir, 'data')]), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    await waitFor(() => /imap kept@ext\.test: active/.test(proc.stderr()), {
      timeoutMs: 20_000,
      message: 'the kept account to be active',
    });
    const one = await alias(proc, 1);
    await appendMail(dovecot, users[0]!, message({ To: one.email, Subject: 'before the reload' }));
    await waitSubjects(proc, one.token, ['before the reload'], 'the first message');

    await writeFile(file, JSON.stringify({ domains: ['tempmail.test'], extmailAccounts: [kept, added] }));
    // Mail that lands while the fetchers are handed over is not lost.
    const said = await hangup(proc, /SIGHUP: config reloaded: /, () =>
      appendMail(dovecot, users[0]!, message({ To: one.email, Subject: 'during the reload' })),
    );
    expect(said).toMatch(
      /extmailAccounts kept@ext\.test \(imap\) -> kept@ext\.test \(imap\), added@ext\.test \(imap\)/,
    );
    await waitFor(() => /imap added@ext\.test: active/.test(proc.stderr()), {
      timeoutMs: 20_000,
      message: 'the added account to be active',
    });
    expect(await offered(proc)).toEqual(['kept@ext.test', 'added@ext.test']);
    const two = await alias(proc, 2);
    expect(two.email).toMatch(/^added\+[a-z0-9-]+@ext\.test$/);
    await appendMail(dovecot, users[1]!, message({ To: two.email, Subject: 'to the added account' }));
    await appendMail(dovecot, users[0]!, message({ To: one.email, Subject: 'after the reload' }));
    await waitSubjects(proc, two.token, ['to the added account'], 'mail through the added account');
    await waitSubjects(
      proc,
      one.token,
      ['after the reload', 'before the reload', 'during the reload'],
      'the kept account, each message once',
    );
    // A last one, once it is in: nothing came twice meanwhile either.
    await appendMail(dovecot, users[0]!, message({ To: one.email, Subject: 'last' }));
    await waitSubjects(
      proc,
      one.token,
      ['after the reload', 'before the reload', 'during the reload', 'last'],
      'the last message, and still each once',
    );

    await writeFile(file, JSON.stringify({ domains: ['tempmail.test'], extmailAccounts: [added] }));
    await hangup(proc, /SIGHUP: config reloaded: .*extmailAccounts /);
    expect(await offered(proc)).toEqual(['added@ext.test']);
    const again = await alias(proc, 1);
    expect(again.email).toMatch(/^added\+/);
    for (const user of users) expect(proc.stderr()).not.toContain(user.password);
  });
});
