/**
 * One session's inbox in the file store: its message directory, the index of its message files (read
 * the first time the inbox is used, not at open), and the count of messages being written now (they
 * hold their place under the inbox limit before they are on disk). FileStore (file-store.ts) owns the
 * sessions and calls these for their messages; message files go down through the store's GroupCommit.
 *
 *   DATA/messages/<sessionId>/<n>.msg   one message (see message-file.ts)
 *   DATA/messages/<sessionId>/hwm       highest id ever handed out, written before deleting the newest
 *
 * Ids count up from 1 in a session made by this process. In a session found on disk at open, the first
 * new id is at least the clock's (clockId below): a data dir restored from a copy has forgotten the ids handed
 * out after the copy was taken, and those must never come back.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable, readExactly, unlinkDurable, writeFileDurable } from './durable-fs';
import { HWM, loadMessageDir, metaCopy, type InboxDirState, type LogOnce } from './file-store-load';
import type { GroupCommit } from './group-commit';
import { encodeMessageFile, sectionOf, type MessageLayout } from './message-file';
import { storageErrorText, type NewMessage, type StoredMessageMeta, type StoredSession } from '../store';
import { logEvent } from '../../observe/log';

/** A session of the file store with its inbox. */
export interface InboxEntry {
  session: StoredSession;
  dir: string;
  /** The message directory exists and its entry is durable. */
  dirReady: boolean;
  /** `messages`, `lastId` and `hwmOnDisk` hold what is on disk (read once, when first needed). */
  loaded: boolean;
  /** The read of the directory in progress, shared by everyone who needs the inbox meanwhile. */
  loading?: Promise<void>;
  messages: Map<number, MessageLayout>;
  /** Counts changes to the listing (a message added or removed): the store's inboxVersion. */
  version: number;
  /** Messages being written now: they count against the inbox limit before they are on disk. */
  adding: number;
  lastId: number;
  /** The lowest id the next message may take (clockId() at open, for a session found on disk; else 0). */
  idFloor: number;
  /** What the hwm file on disk says (0 when absent). */
  hwmOnDisk: number;
  /** The hwm write in progress: writes go one after another, so the file never goes back to a lower id. */
  hwmWriting?: Promise<void>;
  /** Set when the message directory cannot be read (not a directory, no access): ids are unknown, so no adds. */
  loadError?: unknown;
  /** The session was deleted: a write still finishing is not indexed (nothing brings it back). */
  removed?: boolean;
}

/** Ids tried past ones another writer already holds before an add gives up. */
const MAX_ID_ATTEMPTS = 1000;

/** A new entry for `session`, with no messages yet. */
export function newInbox(session: StoredSession, messagesDir: string): InboxEntry {
  return {
    session,
    dir: join(messagesDir, session.id),
    dirReady: false,
    loaded: false,
    messages: new Map(),
    version: 0,
    adding: 0,
    lastId: 0,
    idFloor: 0,
    hwmOnDisk: 0,
  };
}

const EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * The microseconds since 2025-01-01 UTC on this machine's clock, as the PostgreSQL store's ids
 * (postgres/message-ids.ts): 14 digits until 2028, 15 until 2056, so within the interface's 15. A data
 * dir restored from a copy cannot remember ids handed out after the copy; the clock has gone on past
 * them (each message takes far more than a microsecond to store).
 */
export function clockId(now = Date.now()): number {
  return Math.max(0, Math.floor((now - EPOCH_MS) * 1000));
}

/** Failures to read an inbox that pass (too many open files): the next use tries again. */
const PASSING = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM', 'EINTR']);

/**
 * Marks an inbox whose messages cannot be known: the other sessions are served as ever, this one lists
 * nothing and takes no message until a restart can read it (without its files, ids could repeat).
 */
export function cannotRead(entry: InboxEntry, err: unknown, logOnce: LogOnce): void {
  entry.loadError = err;
  entry.loaded = true;
  logOnce(
    `inbox ${entry.session.id}`,
    `store: cannot read messages of session ${entry.session.id}: ${storageErrorText(err)}`,
  );
}

/**
 * What open() found of `entry`'s directory (a session found on disk: its next id is at least the clock's).
 * None: nothing to read (the first message makes it). Not a
 * directory: its messages cannot be known, so it takes none until a restart finds it fixed.
 */
export function markInboxDir(entry: InboxEntry, found: InboxDirState | undefined, logOnce: LogOnce): void {
  entry.idFloor = clockId();
  entry.dirReady = found?.kind === 'dir';
  entry.loaded = found?.kind !== 'dir';
  if (found?.kind === 'bad') cannotRead(entry, found.error, logOnce);
}

/**
 * Reads `entry`'s message directory, once: everyone who needs the inbox meanwhile shares the read.
 * Until it is done nothing is written there, so the temp files it removes are crash leftovers.
 */
export async function loadInbox(entry: InboxEntry, logOnce: LogOnce): Promise<void> {
  if (entry.loaded) return;
  entry.loading ??= loadMessageDir(entry.dir, logOnce)
    .then(
      ({ messages, lastId, hwmOnDisk }) => void Object.assign(entry, { messages, lastId, hwmOnDisk, loaded: true }),
      (err: unknown) => {
        const code = (err as NodeJS.ErrnoException).code;
        // Removed under us: an empty inbox, its directory made again by the next message.
        if (code === 'ENOENT') return void Object.assign(entry, { dirReady: false, loaded: true });
        if (code === undefined || !PASSING.has(code)) return cannotRead(entry, err, logOnce);
        logOnce(
          `inbox ${entry.session.id} ${code}`,
          `store: cannot read messages of session ${entry.session.id} now: ${storageErrorText(err)}`,
        );
        throw err;
      },
    )
    .finally(() => {
      entry.loading = undefined;
    });
  await entry.loading;
}

/** Messages held and being written: what the inbox limit counts. */
export function inboxCount(entry: InboxEntry): number {
  return entry.messages.size + entry.adding;
}

/**
 * Writes one message file under the next id and, once it is durable, indexes it (unless the session
 * went meanwhile) and resolves with a copy of its summary. A failed write burns its id.
 */
export async function writeMessage(
  entry: InboxEntry,
  input: NewMessage,
  messagesDir: string,
  commit: GroupCommit,
): Promise<StoredMessageMeta> {
  if (!entry.dirReady) {
    await mkdirDurable(entry.dir, messagesDir);
    entry.dirReady = true;
  }
  const {
    raw,
    attachments,
    senderName,
    senderEmail,
    subject,
    receivedAt,
    to,
    cc,
    text,
    html,
    headers,
    parseOnRead,
    clientIp,
    envelopeFrom,
  } = input;
  const base = {
    senderName,
    senderEmail,
    subject,
    receivedAt,
    size: raw.length,
    attachments: attachments.map((a, i) => ({
      id: i + 1,
      filename: a.filename,
      contentType: a.contentType,
      size: a.bytes.length,
    })),
    ...(clientIp !== undefined ? { clientIp } : {}),
    ...(envelopeFrom !== undefined ? { envelopeFrom } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    // Taken before the write's first await, so concurrent adds never share an id.
    entry.lastId = Math.max(entry.lastId + 1, entry.idFloor);
    const meta: StoredMessageMeta = { id: entry.lastId, ...base };
    const chunks = encodeMessageFile(
      meta,
      { to, cc, text, html, headers, ...(parseOnRead ? { parseOnRead } : {}) },
      raw,
      attachments.map((a) => a.bytes),
    );
    try {
      // Never over an existing file: another process on this data dir may have taken the id.
      await commit.write(entry.dir, `${meta.id}.msg`, chunks);
      const parts = [chunks[1]?.length ?? 0, raw.length, ...attachments.map((a) => a.bytes.length)];
      if (!entry.removed) {
        entry.messages.set(meta.id, { meta, bodyOffset: chunks[0]?.length ?? 0, parts });
        entry.version++;
      }
      return metaCopy(meta);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_ID_ATTEMPTS) throw err;
    }
  }
}

/**
 * One message into every one of `entries` while each is under `inboxLimit` (else into none: `full`
 * names the full ones). Counted and reserved with no await between, so no other add slips between the
 * count and the write. When a copy fails, the copies already written are taken back (the sender hears
 * 451 and sends again: none is doubled) and the failure rejects.
 */
export async function appendToAll(
  entries: readonly InboxEntry[],
  input: NewMessage,
  inboxLimit: number,
  messagesDir: string,
  commit: GroupCommit,
  log: (line: string) => void,
): Promise<{ stored: Map<string, StoredMessageMeta>; full: string[] }> {
  const full = entries.filter((e) => inboxCount(e) >= inboxLimit).map((e) => e.session.id);
  const stored = new Map<string, StoredMessageMeta>();
  if (full.length > 0) return { stored, full };
  for (const e of entries) e.adding++;
  const results = await Promise.allSettled(
    entries.map((e) => writeMessage(e, input, messagesDir, commit).finally(() => e.adding--)),
  );
  for (const [i, r] of results.entries()) if (r.status === 'fulfilled') stored.set(entries[i]!.session.id, r.value);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return { stored, full };
  for (const e of entries) {
    const meta = stored.get(e.session.id);
    if (!meta) continue;
    await removeMessage(e, meta.id).catch((err: unknown) => {
      logEvent(log, {
        level: 'error',
        event: 'store.failed',
        text: `store: could not take back message ${meta.id} of session ${e.session.id}: ${storageErrorText(err)}`,
        jsonFields: { reason: storageErrorText(err) },
      });
    });
  }
  throw failed.reason;
}

/** Removes message `id` (false when it is not there), recording the high-water mark first when needed. */
export async function removeMessage(entry: InboxEntry | undefined, id: number): Promise<boolean> {
  if (!entry?.messages.has(id)) return false;
  if (entry.hwmOnDisk < id) await recordHwm(entry, id);
  const removed = await unlinkDurable(entry.dir, `${id}.msg`);
  if (entry.messages.delete(id)) entry.version++;
  return removed;
}

/**
 * Deleting the newest file would let a restart hand its id out again: the high-water mark is recorded
 * first. Two deletes at once write it one after the other, each the highest id at its turn: two writes
 * side by side could end with the older, lower one renamed last, and a restart would hand out an id
 * the app has already seen (and marked read).
 */
function recordHwm(entry: InboxEntry, id: number): Promise<void> {
  const write = async () => {
    if (entry.hwmOnDisk >= id) return;
    const hwm = entry.lastId;
    await writeFileDurable(entry.dir, HWM, [Buffer.from(`${hwm}\n`)]);
    entry.hwmOnDisk = Math.max(entry.hwmOnDisk, hwm);
  };
  const next = (entry.hwmWriting ?? Promise.resolve()).then(write, write);
  entry.hwmWriting = next.catch(() => undefined);
  return next;
}

/** Section `index` of message `id` (0 body, 1 raw, 2.. attachments); undefined when there is none. */
export async function readSection(
  entry: InboxEntry | undefined,
  id: number,
  index: number,
): Promise<Buffer | undefined> {
  const layout = entry?.messages.get(id);
  const where = layout && sectionOf(layout, index);
  if (!entry || !where) return undefined;
  try {
    return await readExactly(join(entry.dir, `${id}.msg`), where.position, where.length);
  } catch (err) {
    // Deleted between the lookup and the read.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !entry.messages.has(id)) return undefined;
    throw err;
  }
}

/** The listing of an inbox, oldest first, as copies. */
export function listInbox(entry: InboxEntry | undefined): StoredMessageMeta[] {
  return entry ? [...entry.messages.values()].map((l) => metaCopy(l.meta)).sort((a, b) => a.id - b.id) : [];
}

/** Removes the message directories of deleted sessions, a few at a time; a failure is logged, not thrown. */
export async function removeInboxDirs(entries: readonly InboxEntry[], log: (line: string) => void): Promise<void> {
  for (let i = 0; i < entries.length; i += 8) {
    await Promise.all(
      entries.slice(i, i + 8).map((e) =>
        rm(e.dir, { recursive: true, force: true }).catch((err: unknown) => {
          logEvent(log, {
            level: 'error',
            event: 'store.failed',
            text: `store: could not remove messages of deleted session ${e.session.id}: ${storageErrorText(err)}`,
            jsonFields: { reason: storageErrorText(err) },
          });
        }),
      ),
    );
  }
}
