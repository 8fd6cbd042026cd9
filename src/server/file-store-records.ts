/** Checks and copies for the records the file store reads back from disk. */
import type { StoredMessageMeta, StoredSession } from './store';

/** What a session id may look like: it names a file and a directory, so nothing that can walk a path. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
