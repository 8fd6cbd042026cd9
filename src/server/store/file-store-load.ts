/**
 * What FileStore.open() reads back from disk, and the cleaning it does on the way: temp files are
 * removed, damaged files are renamed to *.corrupt (and never served), and the checks on each record.
 */
import { readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX } from './durable-fs';
import { CorruptFileError, readMessageLayout, type MessageLayout } from './message-file';
import type { StoredMessageMeta, StoredSession } from './store';

/** What a session id may look like: it names a file and a directory, so nothing that can walk a path. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Name of the high-water-mark file in a message directory. */
export const HWM = 'hwm';
/** Message files are read this many at a time at open. */
const READ_BATCH = 16;

type Log = (line: string) => void;

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

/** Renames a damaged file to *.corrupt, so it is kept for inspection but never read again. */
async function setAside(path: string, why: string, log: Log): Promise<void> {
  log(`store: set aside ${path}: ${why}`);
  await rename(path, `${path}.corrupt`);
}

/** Reads every valid session record in `dir`. */
export async function loadSessions(dir: string, log: Log): Promise<StoredSession[]> {
  const out: StoredSession[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (name.startsWith(TEMP_PREFIX)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    const m = /^(.+)\.json$/.exec(name);
    if (!m || !SESSION_ID.test(m[1] ?? '')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(path, 'utf8'));
    } catch {
      parsed = undefined;
    }
    if (isStoredSession(parsed) && parsed.id === m[1]) out.push(parsed);
    else await setAside(path, 'session record is not valid', log);
  }
  return out;
}

/** The messages of one session directory. */
export interface LoadedMessages {
  messages: Map<number, MessageLayout>;
  /** Highest id ever used here (files, damaged files, the hwm file). */
  lastId: number;
  hwmOnDisk: number;
}

/** Reads the message headers of one session directory. */
export async function loadMessageDir(dir: string, log: Log): Promise<LoadedMessages> {
  const loaded: LoadedMessages = { messages: new Map(), lastId: 0, hwmOnDisk: 0 };
  const toRead: { path: string; id: number }[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (name.startsWith(TEMP_PREFIX)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (name === HWM) {
      const n = Number((await readFile(path, 'utf8')).trim());
      if (Number.isSafeInteger(n) && n > 0) loaded.hwmOnDisk = n;
      continue;
    }
    const m = /^(\d{1,15})\.msg(\.corrupt)?$/.exec(name);
    if (!m) continue;
    const id = Number(m[1]);
    // Even a damaged file's id stays used: ids are never handed out twice.
    loaded.lastId = Math.max(loaded.lastId, id);
    if (!m[2]) toRead.push({ path, id });
  }
  loaded.lastId = Math.max(loaded.lastId, loaded.hwmOnDisk);
  for (let i = 0; i < toRead.length; i += READ_BATCH) {
    await Promise.all(
      toRead.slice(i, i + READ_BATCH).map(async ({ path, id }) => {
        try {
          loaded.messages.set(id, await readMessageLayout(path, id));
        } catch (err) {
          if (!(err instanceof CorruptFileError)) throw err;
          await setAside(path, err.message, log);
        }
      }),
    );
  }
  return loaded;
}
