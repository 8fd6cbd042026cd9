/**
 * SIGHUP makes the built `serve` read its config file again (and its admin token file): what changed
 * is logged and in effect at once over real HTTP and SMTP (domains, an external account, inbox limit,
 * message size, the admin token), what takes a restart is said and kept, flags still beat the file, and a file that does not
 * check out keeps the running configuration whole.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

/** Sends SIGHUP and resolves with the SIGHUP lines logged after it, once `until` is among them. */
/** Sends SIGHUP and waits until every pattern is in what serve wrote since (its lines may come in several reads). */
async function hangup(proc: ServeReady, until: RegExp | RegExp[]): Promise<string> {
  const before = proc.stderr().length;
  const all = Array.isArray(until) ? until : [until];
  proc.child.kill('SIGHUP');
  return waitFor(
    () => {
      const said = proc.stderr().slice(before);
      return all.every((p) => p.test(said)) ? said : undefined;
    },
    { message: `the reload to log ${all.join(' and ')}` },
  );
}

const domainsOf = async (proc: ServeReady) =>
  (await call(proc.baseUrl, '/domains')).json!.domains.map((d: { domain: string }) => d.domain);

describe('serve reloads its config file on SIGHUP', () => {
  it('puts domains and limits in effect, names what takes a restart, and keeps what the flags say', async () => {
    const dir = await cleanup.tempDir('tempmail-reload-');
    const file = join(dir, 'serve.json');
    await writeFile(
      file,
      JSON.stringify({ domains: ['one.test'], inboxLimit: 1, maxMessageBytes: 100_000, createPerMinute: 50 }),
    );
    const proc = cleanup.defer(
      await startServeProcess(['--config', file, '--data-dir', join(dir, 'data'), '--create-per-minute', '40']),
      (p) => stopServe(p, 'SIGKILL'),
    );
    expect(await domainsOf(proc)).toEqual(['one.test']);
    const box = await newSession(proc.baseUrl);
    await sendMail(proc, { to: box.email, subject: 'first' });
    const full = await sendMail(proc, { to: box.email, subject: 'second' }).catch(
      (e: { response: string }) => e.response,
    );
    expect(full).toMatch(/^452 4\.2\.2 /);

    await writeFile(
      file,
      JSON.stringify({
        domains: ['one.test', 'two.test'],
        extmailAccounts: ['me@corp.example'],
        inboxLimit: 2,
        maxMessageBytes: 50_000,
        createPerMinute: 60,
        trustProxy: true,
      }),
    );
    const said = await hangup(proc, [/SIGHUP: config reloaded: .*\n/, /SIGHUP: trustProxy changed.*\n/]);
    expect(said).toMatch(
      /SIGHUP: config reloaded: domains one\.test -> one\.test, two\.test; extmailAccounts \(none\) -> me@corp\.example; maxMessageBytes 100000 -> 50000; inboxLimit 1 -> 2\n/,
    );
    expect(said).toContain('SIGHUP: trustProxy changed; that takes a restart (the running value stays)');
    // The flag's create rate beats the file's, before and after: not a change.
    expect(said).not.toContain('createPerMinute');

    expect(await domainsOf(proc)).toEqual(['one.test', 'two.test']);
    const two = (await call(proc.baseUrl, '/create-session', { form: { domain_id: 2 } })).json!;
    expect(two.email).toMatch(/@two\.test$/);
    expect((await sendMail(proc, { to: two.email, subject: 'to the new domain' })).response).toMatch(/^250 /);
    expect((await sendMail(proc, { to: box.email, subject: 'second, now it fits' })).response).toMatch(/^250 /);
    // The account added: listed, its aliases handed out, and mail to one is taken.
    expect((await call(proc.baseUrl, '/domains')).json!.extmail_accounts).toEqual([
      { id: 1, email: 'me@corp.example' },
    ]);
    const alias = (await call(proc.baseUrl, '/create-session', { form: { use_extmail: 1 } })).json!;
    expect(alias.email).toMatch(/^me\+[a-z0-9-]+@corp\.example$/);
    expect((await sendMail(proc, { to: alias.email, subject: 'to the alias' })).response).toMatch(/^250 /);
    const c = cleanup.defer(await openSmtp(proc), (x) => x.destroy());
    expect(await c.command('EHLO client.test')).toContain('SIZE 50000');
    // Still listening where it was.
    expect((await call(proc.baseUrl, '/health')).status).toBe(200);
  });

  it('keeps the running config whole when the new file does not check out', async () => {
    const dir = await cleanup.tempDir('tempmail-reload-');
    const file = join(dir, 'serve.json');
    await writeFile(file, JSON.stringify({ domains: ['kept.test'] }));
    const proc = cleanup.defer(await startServeProcess(['--config', file, '--data-dir', join(dir, 'data')]), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    for (const [content, why] of [
      ['{"domains": ["new.test"], ', 'the file is not valid JSON'],
      [JSON.stringify({ domains: ['new.test'], inboxLimt: 3 }), 'unknown key "inboxLimt"'],
      [
        JSON.stringify({ domains: ['new.test'], inboxLimit: 0 }),
        'inboxLimit: expected a whole number from 1 to 1000000',
      ],
    ]) {
      await writeFile(file, content!);
      const said = await hangup(proc, /SIGHUP: kept the config in use: [^\n]*\n/);
      expect(said).toContain(why!);
      expect(await domainsOf(proc)).toEqual(['kept.test']);
    }
    // Fixed, it is read again.
    await writeFile(file, JSON.stringify({ domains: ['new.test'] }));
    await hangup(proc, /SIGHUP: config reloaded: domains kept\.test -> new\.test\n/);
    expect(await domainsOf(proc)).toEqual(['new.test']);
    // A per-client limit too (the operations' limits take the reload): two requests a minute, then 429.
    await writeFile(file, JSON.stringify({ domains: ['new.test'], httpRequestsPerMinute: 2 }));
    await hangup(proc, /SIGHUP: config reloaded: httpRequestsPerMinute 1200 -> 2\n/);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(proc.baseUrl, '/domains')).status);
    expect(statuses).toContain(429);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('reads the admin token file again: a rotated token in effect, a broken file refused', async () => {
    const dir = await cleanup.tempDir('tempmail-reload-');
    const tokenFile = join(dir, 'admin-token');
    await writeFile(tokenFile, 'first-admin-token-0123456789', { mode: 0o600 });
    const proc = cleanup.defer(
      await startServeProcess(['--admin-token-file', tokenFile, '--data-dir', join(dir, 'data')]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const stats = (token: string) =>
      call(proc.baseUrl, '/admin/stats', { headers: { authorization: `Bearer ${token}` } });
    expect((await stats('first-admin-token-0123456789')).status).toBe(200);
    await writeFile(tokenFile, 'second-admin-token-0123456789\n');
    await hangup(proc, /SIGHUP: config reloaded: nothing else changed\n/);
    expect((await stats('first-admin-token-0123456789')).status).toBe(401);
    expect((await stats('second-admin-token-0123456789')).status).toBe(200);
    await writeFile(tokenFile, 'short');
    const said = await hangup(proc, /SIGHUP: kept the admin token in use: [^\n]*\n/);
    expect(said).toContain(`the admin token file ${tokenFile} must hold one token of 16 to 512 printable characters`);
    expect((await stats('second-admin-token-0123456789')).status).toBe(200);
    expect(proc.stderr()).not.toMatch(/first-admin-token|second-admin-token/);
  });
});
