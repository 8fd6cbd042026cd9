/**
 * One pass over one folder of an external account: the messages that arrived since its cursor (or,
 * without a usable cursor, those young enough to be for a live session) are routed by their headers,
 * and only those sent to a live alias are downloaded and stored. The folder is opened read-only
 * (EXAMINE) and read with BODY.PEEK: the account is never changed, and mail for nobody stays as it was.
 *
 * The cursor (the folder's UIDVALIDITY and the last UID handled) is saved after each stored message, so
 * at most one message can be stored without its cursor saved (a crash in between). A pass that does
 * not trust its cursor (the first after a connection, or after the folder was renumbered) therefore
 * checks each message against the inboxes before storing it: a restart neither misses nor doubles mail.
 *
 * After a renumbering, every message of the folder is checked, for a session lifetime from when the new
 * numbering was first seen: a folder is not always renumbered at once (a provider re-creating it, a
 * migration copying it message by message), and an old message filed again after a pass has seen the
 * new numbering would otherwise be stored a second time. After that lifetime no session that could hold
 * a message of the old numbering is alive.
 */
import type { ImapFlow } from 'imapflow';
import type { ExternalIntake } from '../service/service-types';
import { ServiceError } from '../service/service-types';
import { FETCHED_HEADERS, recipientsOf, routingHead, senderOf } from './recipients';
import { logEvent, type LogLevel } from '../observe/log';

export interface FolderSyncDeps {
  intake: ExternalIntake;
  accountId: number;
  /** The account's address (the key of its cursors). */
  account: string;
  /** Session lifetime: mail older than this (plus a day) cannot be for a live session. */
  lifetimeMs: number;
  maxMessageBytes: number;
  /** Most aliases of the account looked up per message (the service's maxRecipients, as for SMTP). */
  maxRecipients: number;
  log: (line: string) => void;
  now?: () => number;
}

/** Header fetches per round trip. */
const BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a message's header fetch leaves: its routing headers cut to ROUTING_HEAD_MAX_BYTES, so a batch
 * holds at most BATCH x 64 KiB whatever the messages carry.
 */
interface Head {
  uid: number;
  size: number | undefined;
  head: string;
}

function fromOf(head: string): string {
  const from = senderOf(head);
  return from ? `from ${from}` : 'from <>';
}

/**
 * The heads of `uids`, one message at a time off the connection: each is cut down as it arrives, and
 * the fetched block is dropped. No ENVELOPE: the server parses every address into it, and a Cc of some
 * 300,000 addresses made a response of more than imapflow's million tokens, which ends the connection
 * (the same message then failed every reconnect: the account stayed inactive for good). The header
 * fields come as one literal, one token, however many addresses they hold.
 */
async function fetchHeads(client: ImapFlow, uids: number[]): Promise<Head[]> {
  const heads: Head[] = [];
  for await (const m of client.fetch(
    uids.join(','),
    { uid: true, size: true, headers: [...FETCHED_HEADERS] },
    { uid: true },
  )) {
    heads.push({ uid: m.uid, size: m.size, head: routingHead(m.headers) });
  }
  return heads.sort((a, b) => a.uid - b.uid);
}

/**
 * Syncs `folder` on `client` (connected, authenticated). `trusted`: this connection has already saved
 * the folder's cursor, so no message past it can have been stored before; otherwise the first message
 * to store is checked against the inboxes. Returns whether the cursor is trusted after the pass.
 */
export async function syncFolder(
  client: ImapFlow,
  folder: string,
  trusted: boolean,
  deps: FolderSyncDeps,
): Promise<boolean> {
  const { intake, account, log } = deps;
  const now = deps.now ?? Date.now;
  const lock = await client.getMailboxLock(folder, { readOnly: true });
  try {
    const box = client.mailbox;
    if (!box) throw new Error(`folder ${folder} is not open`);
    const uidValidity = Number(box.uidValidity);
    const uidNext = typeof box.uidNext === 'number' ? box.uidNext : undefined;
    const cursor = await intake.fetchCursor(account, folder);
    const fresh = !cursor || cursor.uidValidity !== uidValidity;
    const renumberedAt = fresh ? (cursor ? now() : undefined) : cursor.renumberedAt;
    const settling = renumberedAt !== undefined && now() - renumberedAt < deps.lifetimeMs;
    // Carried in every save while the folder settles; dropped after.
    const save = (lastUid: number) =>
      intake.saveFetchCursor(
        account,
        folder,
        settling ? { uidValidity, lastUid, renumberedAt } : { uidValidity, lastUid },
      );
    // No shortcut on UIDNEXT: for the folder that stays selected (IDLE) it is the one of its SELECT.

    let uids: number[];
    if (fresh) {
      if (cursor)
        logEvent(log, {
          level: 'warn',
          event: 'imap.renumbered',
          jsonFields: { account },
          text: `imap ${account} ${folder}: UIDVALIDITY changed (${cursor.uidValidity} -> ${uidValidity}): the folder was renumbered; looking again at its recent mail`,
        });
      const since = new Date(now() - deps.lifetimeMs - DAY_MS);
      uids = (await client.search({ since }, { uid: true })) || [];
    } else {
      uids = ((await client.search({ uid: `${cursor.lastUid + 1}:*` }, { uid: true })) || []).filter(
        (u) => u > cursor.lastUid,
      );
    }
    uids.sort((a, b) => a - b);

    // Without a cursor of this folder's numbering, or while a renumbering settles, any message may have
    // been stored already.
    const checkEach = fresh || settling;
    let checkNext = !trusted;
    let last = fresh ? 0 : cursor.lastUid;
    for (let i = 0; i < uids.length; i += BATCH) {
      const batch = uids.slice(i, i + BATCH);
      for (const m of await fetchHeads(client, batch)) {
        const stored = await handle(client, m, checkEach || checkNext, folder, deps);
        last = Math.max(last, m.uid);
        if (stored) {
          await save(last);
          checkNext = false;
        }
      }
    }
    // Everything below UIDNEXT (as of the EXAMINE) was searched, or (fresh) is older than any session.
    const end = Math.max(last, (uidNext ?? 1) - 1);
    if (fresh || end !== cursor.lastUid || (cursor.renumberedAt !== undefined && !settling)) await save(end);
    return true;
  } finally {
    lock.release();
  }
}

/** Routes and (for a live alias) stores one message; true when its delivery changed an inbox or was decided. */
async function handle(
  client: ImapFlow,
  m: Head,
  skipHeld: boolean,
  folder: string,
  deps: FolderSyncDeps,
): Promise<boolean> {
  const { intake, account, accountId } = deps;
  const where = `(${account} ${folder} uid ${m.uid})`;
  /** One line about this message: its account and size as fields (JSON only: the sentence says them). */
  const log = (level: LogLevel, event: string, text: string, size?: number) =>
    logEvent(deps.log, { level, event, text, jsonFields: { account, size, recipients: aliasCount }, fold: false });
  let aliasCount: number | undefined;
  const { aliases, unchecked } = await intake.liveAliases(accountId, recipientsOf(m.head));
  if (unchecked > 0) {
    log(
      'warn',
      'imap.recipients_capped',
      `imap looked up only the first ${deps.maxRecipients} aliases a message ${fromOf(m.head)} names ${where}: ${unchecked} more were not (at most ${deps.maxRecipients} per message, as for SMTP)`,
    );
  }
  if (aliases.length === 0) return false; // nobody's here: left in the account as it is
  aliasCount = aliases.length;
  const who = `${fromOf(m.head)} for ${aliases.join(', ')}`;
  if ((m.size ?? 0) > deps.maxMessageBytes) {
    log(
      'warn',
      'imap.left',
      `imap left ${m.size} bytes ${who} in the account ${where}: over the message size limit (${deps.maxMessageBytes} bytes)`,
      m.size,
    );
    return true;
  }
  // fetchOne answers false, not a message, for a UID that is no longer there.
  const full = await client.fetchOne(String(m.uid), { uid: true, source: true }, { uid: true });
  const raw = full === false ? undefined : full.source;
  if (!raw) {
    log(
      'info',
      'imap.skipped',
      `imap skipped a message ${who} ${where}: it was removed from the account before it could be read`,
    );
    return true;
  }
  try {
    const outcome = await intake.deliverFetched({ accountId, raw, aliases, skipHeld });
    if (outcome.full.length > 0) {
      log(
        'warn',
        'imap.left',
        `imap left ${raw.length} bytes ${who} in the account ${where}: inbox full (${outcome.full.join(', ')})`,
        raw.length,
      );
    } else if (outcome.stored.length > 0) {
      log(
        'info',
        'imap.stored',
        `imap stored ${raw.length} bytes ${fromOf(m.head)} for ${outcome.stored.join(', ')} ${where}`,
        raw.length,
      );
    }
    if (outcome.held.length > 0)
      log(
        'info',
        'imap.duplicate',
        `imap found ${where} already stored for ${outcome.held.join(', ')} (before a restart or a renumbering): not stored twice`,
      );
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === 'too_large')) throw error;
    log(
      'warn',
      'imap.left',
      `imap left ${raw.length} bytes ${who} in the account ${where}: over the message size limit (${deps.maxMessageBytes} bytes)`,
      raw.length,
    );
  }
  return true;
}
