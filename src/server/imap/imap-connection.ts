/**
 * The imapflow client of an external account, set up the one way the fetcher uses it, and the folders
 * it fetches (the configured ones, checked to exist; or INBOX and the server's \Junk folder).
 */
import { ImapFlow, type ListResponse } from 'imapflow';
import type { ImapAccountConfig } from '../config/server-config';

/** IDLE is ended and started again this often (servers drop an IDLE left alone for 30 min). */
const IDLE_RESTART_MS = 4 * 60_000;

/** A client for `imap` logging in with `password`; not connected yet. */
export function newClient(imap: ImapAccountConfig, password: string): ImapFlow {
  return new ImapFlow({
    host: imap.host,
    port: imap.port,
    secure: imap.tls === 'tls',
    // starttls: required (never a silent fall back to clear text); none: never attempted.
    doSTARTTLS: imap.tls === 'starttls' ? true : imap.tls === 'none' ? false : undefined,
    auth: { user: imap.user, pass: password },
    // No logger: imapflow's log entries carry the server's and the user's text; what matters is
    // logged by the fetcher, in its own words, with secrets masked.
    logger: false,
    disableAutoIdle: true,
    maxIdleTime: IDLE_RESTART_MS,
    connectionTimeout: 30_000,
    greetingTimeout: 16_000,
    // Without IDLE nothing is said between two checks: the socket may stay quiet that long.
    socketTimeout: Math.max(5 * 60_000, imap.pollSeconds * 1000 + 60_000),
  });
}

/** INBOX and the folder the server marks \Junk (SPECIAL-USE), or failing that one named like it. */
export function defaultFolders(list: readonly ListResponse[]): string[] {
  const junk =
    list.find((b) => b.specialUse === '\\Junk' && b.specialUseSource === 'extension') ??
    list.find((b) => b.specialUse === '\\Junk');
  return junk && junk.path.toUpperCase() !== 'INBOX' ? ['INBOX', junk.path] : ['INBOX'];
}

/** The folders to fetch on a connected `client`, or the configured one that is missing and what there is. */
export async function foldersToFetch(
  client: ImapFlow,
  configured: readonly string[] | undefined,
): Promise<string[] | { missing: string; present: string[] }> {
  const list = await client.list();
  const folders = configured ? [...configured] : defaultFolders(list);
  for (const folder of folders) {
    const box = list.find((b) => b.path === folder || (folder === 'INBOX' && b.path.toUpperCase() === 'INBOX'));
    if (!box || box.flags.has('\\Noselect') || box.flags.has('\\NonExistent')) {
      return { missing: folder, present: list.map((b) => b.path) };
    }
  }
  return folders;
}
