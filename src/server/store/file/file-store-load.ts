/**
 * What FileStore reads back from disk, and the cleaning it does on the way: temp files are removed,
 * damaged files and entries that are not what their names say (a directory or a dangling symlink named
 * like a message, a FIFO, a directory where the hwm file belongs) are renamed to *.corrupt and never
 * read again, each named once in the log. One bad entry costs that entry only. A message file a crash
 * cut short (written under its final name, group-commit.ts, but never acknowledged) is one of these.
 *
 * Sessions are read at open (loadSessions, scanMessageDirs: one record and one directory entry per
 * session); an inbox's message headers are read the first time the inbox is used (loadMessageDir), so
 * opening a store does not grow with the messages it holds.
 */
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { kindOf, readOperatorFile } from '../../../platform/operator-file';
import { TEMP_PREFIX } from './durable-fs';
import { CorruptFileError, readMessageLayout, type MessageLayout } from './message-file';
import { storageErrorText, type StoredMessageMeta, type StoredSession } from '../store';

/** What a session id may look like: it names a file and a directory, so nothing that can walk a path. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Name of the high-water-mark file in a message directory. */
export const HWM = 'hwm';
/** Files read at once (session records at open, message headers when an inbox is first used). */
const READ_BATCH = 32;
/** A session record is a few hundred bytes; its file is read only up to this (and only if regular). */
const SESSION_RECORD_MAX_BYTES = 64 * 1024;
/** The hwm file holds one number. */
const HWM_MAX_BYTES = 1024;

/** A log line per entry: the same entry is never named twice by one store. */
export type LogOnce = (key: string, line: string) => void;

/** True when `v` is a whole session record (as written by putSession). */
export function isStoredSession(v: unknown): v is StoredSession {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.id === 'string' &&
    SESSION_ID.test(s.id) &&
    typeof s.tokenHash === 'string' &&
    typeof s.email === 'string' &&
    typeof s.addressKey === 'string' &&
    typeof s.localPart === 'string' &&
    typeof s.domain === 'string' &&
    (s.kind === 'domain' || s.kind === 'extmail') &&
    (s.extmailAccountId === null || Number.isSafeInteger(s.extmailAccountId)) &&
    typeof s.createdAt === 'number' &&
    typeof s.expiresAt === 'number'
  );
}

/** A deep copy of a message summary, so callers never alias the index. */
export function metaCopy(m: StoredMessageMeta): StoredMessageMeta {
  return { ...m, attachments: m.attachments.map((a) => ({ ...a })) };
}

/**
 * Renames a damaged entry to *.corrupt, so it is kept for inspection but never read again (and never
 * named in the log again). Where even the rename fails, the entry is skipped, named once.
 */
async function setAside(path: string, why: string, logOnce: LogOnce): Promise<void> {
  try {
    await rename(path, `${path}.corrupt`);
    logOnce(path, `store: set aside ${path}: ${why}`);
  } catch (err) {
    logOnce(path, `store: skipped ${path}: ${why} (could not set it aside: ${storageErrorText(err)})`);
  }
}

/** Runs `work` over `items`, `READ_BATCH` at a time. */
async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += READ_BATCH) await Promise.all(items.slice(i, i + READ_BATCH).map(work));
}

/** Reads every valid session record in `dir`. */
export async function loadSessions(dir: string, logOnce: LogOnce): Promise<StoredSession[]> {
  const out: StoredSession[] = [];
  const toRead: { path: string; id: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name.startsWith(TEMP_PREFIX)) {
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    const m = /^(.+)\.json$/.exec(entry.name);
    if (!m || !SESSION_ID.test(m[1] ?? '')) continue;
    if (entry.isFile()) toRead.push({ path, id: m[1]! });
    else await setAside(path, `session record is ${kindOf(entry)}, not a file`, logOnce);
  }
  await inBatches(toRead, async ({ path, id }) => {
    let parsed: unknown;
    try {
      // Checked again on the open file: the entry may have changed since readdir saw a file.
      parsed = JSON.parse((await readOperatorFile(path, { maxBytes: SESSION_RECORD_MAX_BYTES })).toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (isStoredSession(parsed) && parsed.id === id) out.push(parsed);
    else await setAside(path, 'session record is not valid', logOnce);
  });
  return out;
}

/** What scanMessageDirs found for a session: its directory is there, or its entry is not a directory. */
export type InboxDirState = { kind: 'dir' } | { kind: 'bad'; error: NodeJS.ErrnoException };

/**
 * One pass over DATA/messages at open, without reading inside any inbox: directories of sessions that
 * are gone (a session deleted just before a crash, or a temp leftover) are removed, and an entry of a
 * live session that is not a directory is reported (that session's messages cannot be read).
 */
export async function scanMessageDirs(
  dir: string,
  isSession: (id: string) => boolean,
): Promise<Map<string, InboxDirState>> {
  const found = new Map<string, InboxDirState>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!isSession(entry.name)) {
      await rm(join(dir, entry.name), { recursive: true, force: true });
      continue;
    }
    if (entry.isDirectory()) found.set(entry.name, { kind: 'dir' });
    else {
      const error = Object.assign(new Error(`ENOTDIR: not a directory (${kindOf(entry)})`), { code: 'ENOTDIR' });
      found.set(entry.name, { kind: 'bad', error });
    }
  }
  return found;
}

/** The messages of one session directory. */
export interface LoadedMessages {
  messages: Map<number, MessageLayout>;
  /** Highest id ever used here (files, damaged files, the hwm file). */
  lastId: number;
  hwmOnDisk: number;
}

/** Reads the hwm file; 0 (named once) when it is not a whole number. */
async function readHwm(path: string, logOnce: LogOnce): Promise<number> {
  const text = await readOperatorFile(path, { maxBytes: HWM_MAX_BYTES }).then(
    (bytes) => bytes.toString('utf8'),
    (err: unknown) => {
      logOnce(path, `store: skipped ${path}: ${storageErrorText(err)}`);
      return '';
    },
  );
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * Reads the message headers of one session directory. Only a failure to list the directory itself
 * rejects; a message file that cannot be read costs that message only.
 */
export async function loadMessageDir(dir: string, logOnce: LogOnce): Promise<LoadedMessages> {
  const loaded: LoadedMessages = { messages: new Map(), lastId: 0, hwmOnDisk: 0 };
  const toRead: { path: string; id: number }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name.startsWith(TEMP_PREFIX)) {
      // A crash leftover: no write of this store is in flight in an inbox that is not loaded yet.
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    if (entry.name === HWM) {
      if (entry.isFile()) loaded.hwmOnDisk = await readHwm(path, logOnce);
      else
        await setAside(
          path,
          `the high-water mark is ${kindOf(entry)}, not a file; ids are known from the message files only`,
          logOnce,
        );
      continue;
    }
    const m = /^(\d{1,15})\.msg(\.corrupt)?$/.exec(entry.name);
    if (!m) continue;
    const id = Number(m[1]);
    // Even a damaged entry's id stays used: ids are never handed out twice.
    loaded.lastId = Math.max(loaded.lastId, id);
    if (m[2]) continue;
    // Only a regular file is opened: a FIFO would block the open, a symlink leads out of the data dir.
    if (entry.isFile()) toRead.push({ path, id });
    else await setAside(path, `a message file that is ${kindOf(entry)}`, logOnce);
  }
  loaded.lastId = Math.max(loaded.lastId, loaded.hwmOnDisk);
  await inBatches(toRead, async ({ path, id }) => {
    try {
      loaded.messages.set(id, await readMessageLayout(path, id));
    } catch (err) {
      if (err instanceof CorruptFileError) await setAside(path, err.message, logOnce);
      // Unreadable now (EACCES, EIO...): not listed, its id kept; named once, tried again after a restart.
      else logOnce(path, `store: skipped ${path}: ${storageErrorText(err)}`);
    }
  });
  return loaded;
}
