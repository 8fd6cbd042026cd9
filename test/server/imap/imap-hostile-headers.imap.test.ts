/**
 * Mail that anyone can send to a fetched account, shaped to hurt the intake: a 300,000-char Cc without
 * an `@` (the address scan once cost the square of the header: the whole process stalled), a Cc of
 * 300,000 addresses (an ENVELOPE of more than imapflow's million tokens ended the connection, and the
 * same message ended every reconnect), and a message naming more aliases than one message may reach.
 * The built program in a child process (a stall cannot stop the test's own clock), a real Dovecot.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTING_HEAD_MAX_BYTES } from '../../../src/server/imap/recipients';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot, type DovecotUser } from '../../harness/dovecot/dovecot';
import { appendMail, message } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const users: Record<string, DovecotUser> = Object.fromEntries(
  ['stall', 'tokens', 'many'].map((name) => [name, { name, password: `pw-${name}-S3cret!` }]),
);
let dovecot: Dovecot;

beforeAll(async () => {
  dovecot = await startDovecot({ users: Object.values(users) });
});
afterAll(async () => {
  await dovecot?.remove();
});

/** `serve` fetching `user@ext.test` from the test Dovecot (polled every second), with `settings` in its config. */
async function serveFetching(user: DovecotUser, settings: Record<string, unknown> = {}): Promise<ServeReady> {
  const dir = await cleanup.tempDir('tempmail-imap-hostile-');
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${user.password}\n`, { mode: 0o600 });
  const config = join(dir, 'serve.json');
  const imap = {
    host: dovecot.host,
    port: dovecot.port,
    tls: 'none',
    user: user.name,
    passwordFile,
    pollSeconds: 1,
    folders: ['INBOX'],
  };
  writeFileSync(
    config,
    JSON.stringify({
      domains: ['tempmail.test'],
      extmailAccounts: [{ email: `${user.name}@ext.test`, imap }],
      ...settings,
    }),
  );
  const proc = cleanup.defer(await startServeProcess(['--config', config, '--data-dir', join(dir, 'data')]), (p) =>
    stopServe(p, 'SIGKILL'),
  );
  await waitFor(() => proc.stderr().includes(`imap ${user.name}@ext.test: active`), {
    timeoutMs: 15_000,
    message: 'the account to be active',
  });
  return proc;
}

async function alias(proc: ServeReady, prefix: string): Promise<{ email: string; token: string }> {
  const r = await call(proc.baseUrl, 'create-session', { form: { use_extmail: 1, extmail_id: 1, prefix } });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return { email: r.json!.email as string, token: r.json!.token as string };
}

async function subjects(proc: ServeReady, token: string): Promise<string[]> {
  const r = await call(proc.baseUrl, 'check-mail', { query: { token } });
  expect(r.status).toBe(200);
  return (r.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

/** Waits (15 s at most) until the inbox of `token` lists exactly `expected` (sorted). */
function inboxIs(proc: ServeReady, token: string, expected: string[], what: string) {
  const want = JSON.stringify([...expected].sort());
  return waitFor(async () => JSON.stringify(await subjects(proc, token)) === want, {
    timeoutMs: 15_000,
    message: what,
  });
}

describe('IMAP intake and hostile headers', () => {
  it('routes the mail after a 300,000-char Cc without an @, and looks at 64 KiB of routing headers exactly', async () => {
    const user = users.stall!;
    const proc = await serveFetching(user);
    const a = await alias(proc, 'after');
    await appendMail(
      dovecot,
      user,
      message({ To: 'someone@example.org', Cc: 'x'.repeat(300_000), Subject: 'hostile' }),
    );
    await appendMail(dovecot, user, message({ To: a.email, Subject: 'after the hostile one' }));
    await inboxIs(proc, a.token, ['after the hostile one'], 'the message after the hostile one');

    // The cap itself: the routing headers come back as the lines of From, Cc and To, in the message's
    // order; a To line ending exactly at the cap is read, one ending a byte later is not.
    const from = 'From: s@example.org\r\n';
    const to = `To: ${a.email}\r\n`;
    const filler = (bytes: number) => 'y'.repeat(bytes - from.length - 'Cc: \r\n'.length - to.length);
    await appendMail(
      dovecot,
      user,
      message({
        From: 's@example.org',
        Cc: filler(ROUTING_HEAD_MAX_BYTES + 1),
        To: a.email,
        Subject: 'a byte past the cap',
      }),
    );
    await appendMail(
      dovecot,
      user,
      message({ From: 's@example.org', Cc: filler(ROUTING_HEAD_MAX_BYTES), To: a.email, Subject: 'at the cap' }),
    );
    await inboxIs(proc, a.token, ['after the hostile one', 'at the cap'], 'the message whose To ends at the cap');
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('routes a message whose Cc holds 300,000 addresses, and the account stays active', async () => {
    const user = users.tokens!;
    const proc = await serveFetching(user);
    const a = await alias(proc, 'dt');
    const cc = Array.from({ length: 300_000 }, (_, i) => `p${i % 100}@example.org`).join(', ');
    await appendMail(
      dovecot,
      user,
      message({ 'Delivered-To': a.email, To: 'list@example.org', Cc: cc, Subject: 'huge Cc' }),
    );
    await appendMail(dovecot, user, message({ To: a.email, Subject: 'after it' }));
    await inboxIs(proc, a.token, ['after it', 'huge Cc'], 'both messages');
    expect(proc.stderr()).not.toContain('inactive');
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('looks up at most maxRecipients aliases per message, Delivered-To first, and says how many it left', async () => {
    const user = users.many!;
    const proc = await serveFetching(user, { maxRecipients: 3 });
    const boxes = await Promise.all(['one', 'two', 'three', 'four', 'five'].map((p) => alias(proc, p)));
    const [one, two, three, four, five] = boxes as [
      (typeof boxes)[0],
      (typeof boxes)[0],
      (typeof boxes)[0],
      (typeof boxes)[0],
      (typeof boxes)[0],
    ];
    await appendMail(
      dovecot,
      user,
      message({
        To: [one, two, three, four].map((b) => b.email).join(', '),
        'Delivered-To': five.email,
        Subject: 'to five',
      }),
    );
    const line = await waitFor(() => proc.stderr().match(/imap looked up only the first 3 aliases [^\n]*/)?.[0], {
      timeoutMs: 15_000,
      message: 'the cut to be logged',
    });
    expect(line).toMatch(
      /a message from sender@example\.org names \(many@ext\.test INBOX uid 1\): 2 more were not \(at most 3 per message, as for SMTP\)$/,
    );
    for (const box of [five, one, two]) await inboxIs(proc, box.token, ['to five'], `the message for ${box.email}`);
    // A marker after it shows the pass is over: the two past the cap got nothing.
    await appendMail(dovecot, user, message({ To: three.email, Subject: 'marker' }));
    await inboxIs(proc, three.token, ['marker'], 'the marker');
    expect(await subjects(proc, four.token)).toEqual([]);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});
