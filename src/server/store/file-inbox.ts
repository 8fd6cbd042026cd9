/**
 * One session's inbox in the file store: its message directory, the index of its message files, and the
 * count of messages being written now (they hold their place under the inbox limit before they are on
 * disk). FileStore (file-store.ts) owns the sessions and calls these for their messages.
 *
 *   DATA/messages/<sessionId>/<n>.msg   one message (see message-file.ts)
 *   DATA/messages/<sessionId>/hwm       highest id ever handed out, written before deleting the newest
 */
import { join } from 'node:path';
import { mkdirDurable, readExactly, unlinkDurable, writeFileDurable } from './durable-fs';
import { HWM, metaCopy } from './file-store-load';
import { encodeMessageFile, sectionOf, type MessageLayout } from './message-file';
import type { NewMessage, StoredMessageMeta, StoredSession } from './store';

/** A session of the file store with its inbox. */
export interface InboxEntry {
  session: StoredSession;
  dir: string;
  /** The message directory exists and its entry is durable. */
  dirReady: boolean;
  messages: Map<number, MessageLayout>;
  /** Messages being written now: they count against the inbox limit before they are on disk. */
  adding: number;
  lastId: number;
  /** What the hwm file on disk says (0 when absent). */
  hwmOnDisk: number;
  /** Set when the message directory could not be read at open: ids are unknown, so no adds. */
  loadError?: unknown;
}

/** Ids tried past ones another writer already holds before an add gives up. */
const MAX_ID_ATTEMPTS = 1000;

/** A new entry for `session`, with no messages yet. */
export function newInbox(session: StoredSession, messagesDir: string): InboxEntry {
  return { session, dir: join(messagesDir, session.id), dirReady: false, messages: new Map(), adding: 0, lastId: 0, hwmOnDisk: 0 };
}

/** Messages held and being written: what the inbox limit counts. */
export function inboxCount(entry: InboxEntry): number {
  return entry.messages.size + entry.adding;
}

/**
 * Writes one message file under the next id and resolves with its layout once it is durable. The caller
 * adds the layout to `entry.messages` (unless the session went meanwhile). A failed write burns its id.
 */
export async function writeMessage(entry: InboxEntry, input: NewMessage, messagesDir: string): Promise<MessageLayout> {
  if (!entry.dirReady) {
    await mkdirDurable(entry.dir, messagesDir);
    entry.dirReady = true;
  }
  const { raw, attachments, senderName, senderEmail, subject, receivedAt, to, cc, text, html, headers } = input;
  const base = {
    senderName,
    senderEmail,
    subject,
    receivedAt,
    size: raw.length,
    attachments: attachments.map((a, i) => ({ id: i + 1, filename: a.filename, contentType: a.contentType, size: a.bytes.length })),
  };
  for (let attempt = 0; ; attempt++) {
    // Taken before the write's first await, so concurrent adds never share an id.
    const meta: StoredMessageMeta = { id: ++entry.lastId, ...base };
    const chunks = encodeMessageFile(meta, { to, cc, text, html, headers }, raw, attachments.map((a) => a.bytes));
    try {
      // Never over an existing file: another process on this data dir may have taken the id.
      await writeFileDurable(entry.dir, `${meta.id}.msg`, chunks, { replace: false });
      const parts = [chunks[1]?.length ?? 0, raw.length, ...attachments.map((a) => a.bytes.length)];
      return { meta, bodyOffset: chunks[0]?.length ?? 0, parts };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_ID_ATTEMPTS) throw err;
    }
  }
}

/** Removes message `id` (false when it is not there), recording the high-water mark first when needed. */
export async function removeMessage(entry: InboxEntry | undefined, id: number): Promise<boolean> {
  if (!entry || !entry.messages.has(id)) return false;
  if (entry.hwmOnDisk < id) {
    // Deleting the newest file would let a restart hand its id out again: record the high-water mark.
    const hwm = entry.lastId;
    await writeFileDurable(entry.dir, HWM, [Buffer.from(`${hwm}\n`)]);
    entry.hwmOnDisk = Math.max(entry.hwmOnDisk, hwm);
  }
  const removed = await unlinkDurable(entry.dir, `${id}.msg`);
  entry.messages.delete(id);
  return removed;
}

/** Section `index` of message `id` (0 body, 1 raw, 2.. attachments); undefined when there is none. */
export async function readSection(entry: InboxEntry | undefined, id: number, index: number): Promise<Buffer | undefined> {
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
