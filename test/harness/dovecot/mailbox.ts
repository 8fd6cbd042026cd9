/**
 * What the IMAP tests do to an account on the test Dovecot, as its provider's other users would: mail
 * arrives by IMAP APPEND (as a provider files an incoming message), folders are deleted and created
 * again (the UIDVALIDITY changes), and the account is looked at afterwards (was anything changed?).
 * All through imapflow, a real IMAP client.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import type { ExtmailAccountConfig, ImapAccountConfig } from '../../../src/server/config/server-config';
import type { Cleanup } from '../cleanup';
import type { Dovecot, DovecotUser } from './dovecot';

/** Runs `work` on a fresh connection to `user`'s account, logged out after. */
export async function withMailbox<T>(
  dovecot: Dovecot,
  user: DovecotUser,
  work: (client: ImapFlow) => Promise<T>,
): Promise<T> {
  const client = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    doSTARTTLS: false,
    auth: { user: user.name, pass: user.password },
    logger: false,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** Files `raw` into `folder` of `user`'s account; resolves with its UID. */
export async function appendMail(
  dovecot: Dovecot,
  user: DovecotUser,
  raw: string | Buffer,
  folder = 'INBOX',
): Promise<number> {
  return withMailbox(dovecot, user, async (client) => {
    const result = await client.append(folder, raw);
    if (!result || result.uid === undefined) throw new Error(`APPEND to ${folder} failed`);
    return result.uid;
  });
}

/** Every message of `folder`: its UID and flags (to see that nothing was marked or removed). */
export async function listMailbox(
  dovecot: Dovecot,
  user: DovecotUser,
  folder = 'INBOX',
): Promise<{ uid: number; flags: string[] }[]> {
  return withMailbox(dovecot, user, async (client) => {
    const lock = await client.getMailboxLock(folder, { readOnly: true });
    try {
      if (!client.mailbox || client.mailbox.exists === 0) return [];
      const all = await client.fetchAll('1:*', { uid: true, flags: true });
      return all.map((m) => ({ uid: m.uid, flags: [...(m.flags ?? [])].sort() }));
    } finally {
      lock.release();
    }
  });
}

/** A message as a provider would file it: CRLF lines, the given headers, a Message-ID of its own. */
export function message(headers: Record<string, string>, body = 'Your code is 482913'): string {
  const all: Record<string, string> = {
    From: 'Sender <sender@example.org>',
    Subject: 'Hello',
    Date: 'Tue, 24 Nov 2026 10:00:00 +0000',
    'Message-ID': `<${Math.random().toString(36).slice(2)}@example.org>`,
    ...headers,
  };
  return `${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}\r\n`;
}

/**
 * An external account fetched from the test Dovecot: `user@ext.test` (the provider's domain in these
 * tests), clear IMAP on loopback, the password in a 0600 file. Poll every second unless said.
 */
export async function accountOn(
  cleanup: Cleanup,
  dovecot: Dovecot,
  user: DovecotUser,
  imap: Partial<ImapAccountConfig> = {},
  account: Partial<ExtmailAccountConfig> = {},
): Promise<ExtmailAccountConfig> {
  const dir = await cleanup.tempDir('tempmail-imap-secret-');
  const file = join(dir, 'password');
  await writeFile(file, `${user.password}\n`, { mode: 0o600 });
  return {
    email: `${user.name}@ext.test`,
    dotInsensitive: false,
    ...account,
    imap: {
      host: dovecot.host,
      port: dovecot.port,
      tls: 'none',
      user: user.name,
      password: { file },
      pollSeconds: 1,
      ...imap,
    },
  };
}
