/**
 * The IMAP intake through what goes wrong: a restart (also one right after a message was stored but
 * before its cursor was saved), a folder renumbered (UIDVALIDITY), the IMAP server gone and back, a
 * wrong password, a server without IDLE. Against throwaway Dovecots on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/server/store/file/file-store';
import type { ExtmailAccountConfig, ServerConfig } from '../../../src/server/config/server-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot, type DovecotUser } from '../../harness/dovecot/dovecot';
import { accountOn, appendMail, message, withMailbox } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const users: Record<string, DovecotUser> = Object.fromEntries(
  ['restart', 'renumber', 'locked', 'misfiled'].map((name) => [name, { name, password: `pw-${name}-S3cret!` }]),
);
let dovecot: Dovecot;

beforeAll(async () => {
  dovecot = await startDovecot({ users: Object.values(users) });
});
afterAll(async () => {
  await dovecot?.remove();
});

async function serve(accounts: ExtmailAccountConfig[], overrides: Partial<ServerConfig> = {}): Promise<TestService> {
  const svc = await startTestService({ domains: ['tempmail.test'], extmailAccounts: accounts, ...overrides });
  return cleanup.defer(svc, (s) => s.close());
}

async function alias(svc: TestService, prefix: string): Promise<{ email: string; token: string }> {
  const r = await call(svc.baseUrl, 'create-session', { form: { use_extmail: 1, prefix } });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return { email: r.json!.email as string, token: r.json!.token as string };
}

async function subjects(svc: TestService, token: string): Promise<string[]> {
  const r = await call(svc.baseUrl, 'check-mail', { query: { token } });
  return (r.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

function waitSubjects(svc: TestService, token: string, expected: string[], what: string) {
  return waitFor(async () => JSON.stringify(await subjects(svc, token)) === JSON.stringify([...expected].sort()), {
    timeoutMs: 20_000,
    message: what,
  });
}

async function listed(svc: TestService): Promise<string[]> {
  const r = await call(svc.baseUrl, 'domains');
  return (r.json!.extmail_accounts as { email: string }[]).map((a) => a.email);
}

describe('IMAP intake faults', () => {
  it('resumes after a restart without missing or doubling mail, even when the cursor lagged one message behind', async () => {
    const user = users.restart!;
    const dataDir = await cleanup.tempDir('tempmail-imap-restart-');
    const account = await accountOn(cleanup, dovecot, user);
    const first = await serve([account], { dataDir });
    const s = await alias(first, 'again');
    const uid1 = await appendMail(dovecot, user, message({ To: s.email, Subject: 'before the restart' }));
    await waitSubjects(first, s.token, ['before the restart'], 'the first message');
    await first.close();

    await appendMail(dovecot, user, message({ To: s.email, Subject: 'while it was down' }));
    // As if the service had died between storing the first message and saving its cursor.
    const store = new FileStore(dataDir);
    await store.open();
    expect(await store.getFetchCursor(account.email, 'INBOX')).toMatchObject({ lastUid: uid1 });
    const { uidValidity } = (await store.getFetchCursor(account.email, 'INBOX'))!;
    await store.putFetchCursor(account.email, 'INBOX', { uidValidity, lastUid: uid1 - 1 });
    await store.close();

    const second = await serve([account], { dataDir });
    await waitSubjects(
      second,
      s.token,
      ['before the restart', 'while it was down'],
      'the message sent while it was down',
    );
    await waitFor(() => second.logs.some((l) => l.includes(`uid ${uid1}) already stored`)), {
      timeoutMs: 10_000,
      message: 'the already-stored line',
    });
    // A later message still comes once: nothing was held back, and nothing doubled meanwhile.
    await appendMail(dovecot, user, message({ To: s.email, Subject: 'after the restart' }));
    await waitSubjects(
      second,
      s.token,
      ['after the restart', 'before the restart', 'while it was down'],
      'the message after the restart',
    );
  });

  it('looks again at a renumbered folder (UIDVALIDITY changed) and stores only what it had not', async () => {
    const user = users.renumber!;
    const svc = await serve([await accountOn(cleanup, dovecot, user, { folders: ['INBOX', 'Junk'] })]);
    const s = await alias(svc, 'renumbered');
    const kept = message({ To: s.email, Subject: 'kept across the renumbering' });
    await appendMail(dovecot, user, kept, 'Junk');
    await waitSubjects(svc, s.token, ['kept across the renumbering'], 'the first message');
    await withMailbox(dovecot, user, async (client) => {
      await client.mailboxDelete('Junk');
      await client.mailboxCreate('Junk');
    });
    // The same message again under a new numbering, then a new one.
    await appendMail(dovecot, user, kept, 'Junk');
    await appendMail(dovecot, user, message({ To: s.email, Subject: 'new after the renumbering' }), 'Junk');
    await waitSubjects(svc, s.token, ['kept across the renumbering', 'new after the renumbering'], 'the new message');
    expect(svc.logs.some((l) => l.includes('imap renumber@ext.test Junk: UIDVALIDITY changed'))).toBe(true);
    expect(svc.logs.some((l) => l.includes('already stored for renumber+renumbered@ext.test'))).toBe(true);
  });

  it('keeps checking a renumbered folder that is filled again after a pass saw it empty, so an old message comes once', async () => {
    // A folder re-created and then filled message by message (a provider's migration): a pass may see
    // the new numbering before the old messages are back. The same account, another alias, folder Junk.
    const user = users.renumber!;
    const svc = await serve([await accountOn(cleanup, dovecot, user, { folders: ['INBOX', 'Junk'] })]);
    const s = await alias(svc, 'refilled');
    const kept = message({ To: s.email, Subject: 'kept across the refill' });
    await appendMail(dovecot, user, kept, 'Junk');
    await waitSubjects(svc, s.token, ['kept across the refill'], 'the first message');
    await withMailbox(dovecot, user, async (client) => {
      await client.mailboxDelete('Junk');
      await client.mailboxCreate('Junk');
    });
    await waitFor(() => svc.logs.some((l) => l.includes('imap renumber@ext.test Junk: UIDVALIDITY changed')), {
      timeoutMs: 15_000,
      message: 'a pass over the empty renumbered folder',
    });
    await appendMail(dovecot, user, kept, 'Junk');
    await appendMail(dovecot, user, message({ To: s.email, Subject: 'new after the refill' }), 'Junk');
    await waitSubjects(svc, s.token, ['kept across the refill', 'new after the refill'], 'the new message');
    expect(svc.logs.some((l) => l.includes('already stored for renumber+refilled@ext.test'))).toBe(true);
  });

  it('refuses a wrong password: inactive, not offered, one clear log line, no secret in any line', async () => {
    const user = users.locked!;
    const wrong = { ...user, password: 'Wrong-Pa55word-xyz' };
    const svc = await serve([await accountOn(cleanup, dovecot, wrong, { user: user.name })]);
    await waitFor(() => svc.logs.some((l) => l.includes('imap locked@ext.test: inactive')), {
      timeoutMs: 15_000,
      message: 'the inactive line',
    });
    expect(await listed(svc)).toEqual([]);
    const r = await call(svc.baseUrl, 'create-session', { form: { use_extmail: 1 } });
    expect(r.status).toBe(400);
    expect(r.json!.message).toContain('No external mail account is available right now');
    // Retried with backoff (the server saw several logins), yet logged once.
    await waitFor(() => (dovecot.log().match(/auth failed/g) ?? []).length >= 2, {
      timeoutMs: 15_000,
      message: 'a second login attempt',
    });
    const lines = svc.logs.filter((l) => l.includes('imap locked@ext.test'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /inactive \(not offered by GET \/domains\): login refused by 127\.0\.0\.1:\d+: .*check the user and the password/,
    );
    for (const line of svc.logs) {
      expect(line).not.toContain(wrong.password);
      expect(line).not.toContain(Buffer.from(wrong.password).toString('base64'));
      expect(line).not.toContain(Buffer.from(`\0locked\0${wrong.password}`).toString('base64'));
    }
  });
});

describe('IMAP intake with a folder that is not there', () => {
  it('is inactive, naming the missing folder and the ones there are', async () => {
    const user = users.misfiled!;
    const svc = await serve([await accountOn(cleanup, dovecot, user, { folders: ['INBOX', '[Gmail]/Spam'] })]);
    await waitFor(() => svc.logs.some((l) => l.includes('imap misfiled@ext.test: inactive')), {
      timeoutMs: 15_000,
      message: 'the inactive line',
    });
    expect(svc.logs.find((l) => l.includes('imap misfiled@ext.test: inactive'))).toMatch(
      /: the folder "\[Gmail\]\/Spam" does not exist on 127\.0\.0\.1:\d+ \(the account has "INBOX", "Sent", "Junk"\); retrying with backoff$/,
    );
    expect(await listed(svc)).toEqual([]);
  });
});

describe('IMAP intake against a server that goes away, and one without IDLE', () => {
  it('goes inactive while the server is down, reconnects with backoff, and is offered and fetching again', async () => {
    const user = { name: 'flaky', password: 'pw-flaky-S3cret!' };
    const own = cleanup.defer(await startDovecot({ users: [user] }), (d) => d.remove());
    const svc = await serve([await accountOn(cleanup, own, user)]);
    await waitFor(() => svc.logs.some((l) => l.includes('imap flaky@ext.test: active')), {
      timeoutMs: 15_000,
      message: 'the account to be active',
    });
    expect(await listed(svc)).toEqual(['flaky@ext.test']);
    const s = await alias(svc, 'survivor');

    await own.stop();
    await waitFor(async () => (await listed(svc)).length === 0, {
      timeoutMs: 20_000,
      message: 'the account to be inactive',
    });
    expect(svc.logs.find((l) => l.includes('imap flaky@ext.test: inactive'))).toMatch(
      /connection refused by 127\.0\.0\.1:\d+; retrying with backoff/,
    );
    await own.start();
    await waitFor(async () => (await listed(svc)).length === 1, {
      timeoutMs: 30_000,
      message: 'the account to be offered again',
    });
    await appendMail(own, user, message({ To: s.email, Subject: 'after the outage' }));
    await waitSubjects(svc, s.token, ['after the outage'], 'mail after the outage');
    const changes = svc.logs.filter((l) => /imap flaky@ext\.test: (active|inactive)/.test(l));
    expect(changes.map((l) => /: (active|inactive)/.exec(l)![1])).toEqual(['active', 'inactive', 'active']);
  });

  it('polls a server that has no IDLE', async () => {
    const user = { name: 'oldie', password: 'pw-oldie-S3cret!' };
    const own = cleanup.defer(await startDovecot({ users: [user], idle: false }), (d) => d.remove());
    const svc = await serve([await accountOn(cleanup, own, user, { pollSeconds: 1 })]);
    const s = await alias(svc, 'polled');
    await waitFor(() => svc.logs.some((l) => l.includes('imap oldie@ext.test: active')), {
      timeoutMs: 15_000,
      message: 'the account to be active',
    });
    expect(svc.logs.find((l) => l.includes('imap oldie@ext.test: active'))).toContain(
      'no IDLE on this server: checked every 1 s',
    );
    await appendMail(own, user, message({ To: s.email, Subject: 'polled in' }));
    await waitSubjects(svc, s.token, ['polled in'], 'the polled message');
  });
});
