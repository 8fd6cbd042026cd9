/**
 * Issue 24, point 2: never an orphaned account. mail.tm makes the account (POST /accounts), then its
 * token (POST /token); when the sign-in fails (a 429 asking for longer than `new` waits), the account is
 * already saved with its address, password and provider, `new` prints it and says so, the next command
 * that needs it signs in (and keeps the token), and `forget --delete-account` deletes it at mail.tm.
 * Before: the account existed at mail.tm with its password lost, and was never saved.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';
import { makeRunner, type Runner } from '../run';

let fake: MailtmFake;
let r: Runner;
beforeAll(async () => {
  fake = await startMailtmFake();
  r = makeRunner();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await fake.close();
});

it('a sign-in refused after the account was made: saved, signed in by the next command, deletable', async () => {
  const on = ['--provider', 'mailtm', '--base-url', fake.baseUrl];
  fake.failNext(429, 1, 60, 'token');
  const made = await r.run('new', on);
  expect(made.code, made.stderr).toBe(0);
  const address = made.stdout.trim();
  expect(fake.accounts().map((a) => a.address)).toEqual([address]);
  expect(made.stderr).toBe(
    `${address} was created and saved, but mail.tm did not sign it in yet (Too many requests to the service); the next command that needs it signs in\n`,
  );
  const store = openSavedSessions({ env: r.env });
  const [saved] = store.listLive(undefined, fake.baseUrl, 'mailtm');
  expect(saved).toMatchObject({ email: address, provider: 'mailtm', token: '', expiresAt: null });
  expect(saved!.password).toMatch(/^[A-Za-z0-9_-]{32}$/);

  fake.deliver(address, { subject: 'Welcome', text: 'Hello there' });
  const listed = await r.run('list', ['--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toMatchObject({ address, messages: [{ subject: 'Welcome' }] });
  // The sign-in's token is kept: the next command does not sign in again.
  expect(store.listLive(undefined, fake.baseUrl, 'mailtm')[0]!.token).toMatch(/^eyJ/);
  const signIns = fake.log.filter((l) => l.path === '/token').length;
  expect((await r.run('list', [])).code).toBe(0);
  expect(fake.log.filter((l) => l.path === '/token').length).toBe(signIns);

  const forgot = await r.run('forget', ['--delete-account']);
  expect(forgot.code, forgot.stderr).toBe(0);
  expect(fake.accounts()).toEqual([]);
  expect(store.listLive()).toEqual([]);
});

it('forget --delete-account works on an account whose sign-in never went through', async () => {
  fake.failNext(429, 1, 60, 'token');
  const made = await r.run('new', ['--provider', 'mailtm', '--base-url', fake.baseUrl, '-q']);
  expect(made).toMatchObject({ code: 0, stderr: '' });
  expect(fake.accounts()).toHaveLength(1);
  const forgot = await r.run('forget', ['--delete-account']);
  expect(forgot.code, forgot.stderr).toBe(0);
  expect(fake.accounts()).toEqual([]);
});

it('--show-token fails when there is no token to show, the address still printed and saved', async () => {
  fake.failNext(429, 1, 60, 'token');
  const made = await r.run('new', ['--provider', 'mailtm', '--base-url', fake.baseUrl, '--show-token']);
  expect(made.code).toBe(1);
  const address = made.stdout.trim();
  expect(address).toMatch(/@(mailtm|inbox-tm)\.test$/);
  expect(made.stderr).toContain(`${address} was created and saved, but mail.tm did not sign it in yet`);
  expect(made.stderr).toContain('no token to show yet');
  expect(
    openSavedSessions({ env: r.env })
      .listLive()
      .map((s) => s.email),
  ).toContain(address);
});
