/**
 * Mail of a real external account (a throwaway Dovecot on loopback) reaches the live session whose alias
 * it was sent to, read from Delivered-To, X-Original-To, To and Cc with the account's rules (case, dots,
 * plus tag), from INBOX and from the folder the server marks \Junk; it is stored exactly as SMTP mail is
 * (check-mail, read-mail, raw-mail, delete-mail), under the inbox limit; mail for nobody, and the account
 * itself, are left as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot, type DovecotUser } from '../../harness/dovecot/dovecot';
import { accountOn, appendMail, listMailbox, message, withMailbox } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import type { ExtmailAccountConfig, ServerConfig } from '../../../src/server/config/server-config';

const cleanup = cleanupAfterEach();
const users: Record<string, DovecotUser> = Object.fromEntries(
  ['routes', 'dotty', 'spammy', 'gmailish', 'limited', 'untouched'].map((name) => [
    name,
    { name, password: `pw-${name}-S3cret!` },
  ]),
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

async function alias(svc: TestService, prefix: string, extmailId = 1): Promise<{ email: string; token: string }> {
  const r = await call(svc.baseUrl, 'create-session', { form: { use_extmail: 1, extmail_id: extmailId, prefix } });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return { email: r.json!.email as string, token: r.json!.token as string };
}

async function inbox(svc: TestService, token: string): Promise<{ id: number; subject: string }[]> {
  const r = await call(svc.baseUrl, 'check-mail', { query: { token } });
  expect(r.status).toBe(200);
  return r.json!.messages as { id: number; subject: string }[];
}

/** Waits until the inbox of `token` holds `count` messages; returns them (newest first). */
function inboxOf(svc: TestService, token: string, count: number, what: string) {
  return waitFor(
    async () => {
      const list = await inbox(svc, token);
      return list.length === count ? list : undefined;
    },
    { timeoutMs: 15_000, message: what },
  );
}

function active(svc: TestService): Promise<string[]> {
  return call(svc.baseUrl, 'domains').then((r) =>
    (r.json!.extmail_accounts as { email: string }[]).map((a) => a.email),
  );
}

describe('IMAP intake on a real Dovecot', () => {
  it("routes by Delivered-To, X-Original-To, To and Cc; IDLE brings new mail at once; nobody's mail stays untouched", async () => {
    const user = users.routes!;
    // A poll once an hour: whatever arrives in INBOX within seconds came through IDLE.
    const svc = await serve([await accountOn(cleanup, dovecot, user, { pollSeconds: 3600, folders: ['INBOX'] })]);
    await waitFor(() => svc.logs.some((l) => l.includes('imap routes@ext.test: active')), {
      timeoutMs: 15_000,
      message: 'the account to be active',
    });
    expect(svc.logs.find((l) => l.includes('active'))).toContain('IDLE on INBOX');
    expect(await active(svc)).toEqual(['routes@ext.test']);
    const [a, b, c, d] = await Promise.all(['dlv', 'orig', 'to', 'cc'].map((p) => alias(svc, p)));
    expect(a!.email).toBe('routes+dlv@ext.test');

    const raws = {
      dlv: message({ 'Delivered-To': a!.email, To: 'list@lists.example.org', Subject: 'by Delivered-To' }),
      orig: message({
        'X-Original-To': b!.email.toUpperCase(),
        To: 'undisclosed-recipients:;',
        Subject: 'by X-Original-To',
      }),
      to: message({ To: `"Someone" <${c!.email}>, other@example.org`, Subject: 'by To' }),
      cc: message({
        To: 'other@example.org',
        Cc: `first@example.org,\r\n  Routes <ROUTES+CC@ext.test>`,
        Subject: 'by Cc',
      }),
      nobody: message({ To: 'routes+nobody@ext.test', Subject: 'for no live alias' }),
      bare: message({ To: 'routes@ext.test', Subject: 'to the account itself' }),
    };
    // Fetched mail is news for an in-process watcher of its session, as SMTP mail is (the app's local push).
    let heard = 0;
    const unwatch = svc.service.watchInbox(a!.token, () => heard++);
    for (const raw of Object.values(raws)) await appendMail(dovecot, user, raw);

    for (const [who, subject] of [
      [a!, 'by Delivered-To'],
      [b!, 'by X-Original-To'],
      [c!, 'by To'],
      [d!, 'by Cc'],
    ] as const) {
      const list = await inboxOf(svc, who.token, 1, `"${subject}" for ${who.email}`);
      expect(list.map((m) => m.subject)).toEqual([subject]);
    }
    await waitFor(() => heard === 1, {
      timeoutMs: 5_000,
      message: `the watcher of ${a!.email} told of its one message`,
    });
    unwatch();
    // Stored as SMTP mail is: the same read, raw and delete routes.
    const read = await call(svc.baseUrl, 'read-mail', { query: { token: c!.token, id: 1 } });
    expect(read.json!.message).toMatchObject({
      subject: 'by To',
      sender_email: 'sender@example.org',
      body_text: 'Your code is 482913\n',
    });
    const raw = await call(svc.baseUrl, 'raw-mail', { query: { token: c!.token, id: 1 } });
    expect(raw.bytes.toString('utf8')).toBe(raws.to);
    expect((await call(svc.baseUrl, 'delete-mail', { form: { token: c!.token, id: 1 } })).status).toBe(200);
    expect(await inbox(svc, c!.token)).toEqual([]);

    // Nothing was marked, moved or removed in the account: six messages, no flag but \Recent (the
    // server's, not a client's: it only says which session saw the message first).
    const left = await listMailbox(dovecot, user);
    expect(left).toHaveLength(6);
    expect(left.flatMap((m) => m.flags.filter((f) => f !== '\\Recent'))).toEqual([]);
    expect(svc.logs.filter((l) => l.startsWith('imap stored'))).toHaveLength(4);
    expect(svc.logs.some((l) => l.includes('nobody'))).toBe(false);
  });

  it('takes any letter case and, for a dot-insensitive account, any dots; another tag is another alias', async () => {
    const user = users.dotty!;
    const svc = await serve([await accountOn(cleanup, dovecot, user, {}, { dotInsensitive: true })]);
    const s = await alias(svc, 'otter');
    expect(s.email.replace(/\.(?=.*@)/g, '')).toBe('dotty+otter@ext.test');
    await appendMail(dovecot, user, message({ To: 'D.O.T.T.Y+OTTER@EXT.TEST', Subject: 'dots and case' }));
    await appendMail(dovecot, user, message({ To: 'dotty+otters@ext.test', Subject: 'another tag' }));
    await appendMail(dovecot, user, message({ To: 'dotty+otter@other.test', Subject: 'another provider' }));
    const list = await inboxOf(svc, s.token, 1, 'the dotted, upper-case alias');
    expect(list.map((m) => m.subject)).toEqual(['dots and case']);
    // Give the two others a pass to be (wrongly) routed: a marker message after them arrives only after they were seen.
    await appendMail(dovecot, user, message({ To: 'dotty+otter@ext.test', Subject: 'marker' }));
    expect((await inboxOf(svc, s.token, 2, 'the marker')).map((m) => m.subject)).toEqual(['marker', 'dots and case']);
  });

  it('fetches the folder the server marks \\Junk without being told, and a configured "[Gmail]/Spam"', async () => {
    const spammy = users.spammy!;
    const gmailish = users.gmailish!;
    await withMailbox(dovecot, gmailish, (client) => client.mailboxCreate(['[Gmail]', 'Spam']));
    const svc = await serve([
      await accountOn(cleanup, dovecot, spammy),
      await accountOn(cleanup, dovecot, gmailish, { folders: ['INBOX', '[Gmail]/Spam'] }),
    ]);
    const a = await alias(svc, 'promo', 1);
    const b = await alias(svc, 'promo', 2);
    await appendMail(dovecot, spammy, message({ To: a.email, Subject: 'filed as spam' }), 'Junk');
    await appendMail(dovecot, gmailish, message({ To: b.email, Subject: 'in [Gmail]/Spam' }), '[Gmail]/Spam');
    await appendMail(dovecot, gmailish, message({ To: b.email, Subject: 'in Junk, not configured' }), 'Junk');
    await appendMail(dovecot, gmailish, message({ To: b.email, Subject: 'in INBOX' }));
    expect((await inboxOf(svc, a.token, 1, 'the spam-folder message')).map((m) => m.subject)).toEqual([
      'filed as spam',
    ]);
    const got = await inboxOf(svc, b.token, 2, 'the [Gmail]/Spam and INBOX messages');
    expect(got.map((m) => m.subject).sort()).toEqual(['in INBOX', 'in [Gmail]/Spam']);
    expect(svc.logs.find((l) => l.includes('imap spammy@ext.test: active'))).toContain('INBOX, Junk');
  });

  it('holds the inbox limit: a message past it stays in the account, logged', async () => {
    const user = users.limited!;
    const svc = await serve([await accountOn(cleanup, dovecot, user)], { inboxLimit: 1 });
    const s = await alias(svc, 'full');
    await appendMail(dovecot, user, message({ To: s.email, Subject: 'first' }));
    await inboxOf(svc, s.token, 1, 'the first message');
    await appendMail(dovecot, user, message({ To: s.email, Subject: 'second' }));
    await waitFor(() => svc.logs.find((l) => l.startsWith('imap left') && l.includes('inbox full')), {
      timeoutMs: 15_000,
      message: 'the inbox-full line',
    });
    expect((await inbox(svc, s.token)).map((m) => m.subject)).toEqual(['first']);
    expect(await listMailbox(dovecot, user)).toHaveLength(2);
  });
});
