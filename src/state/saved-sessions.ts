/**
 * Every created address is saved so it can be resumed: `sessions.json` in the XDG state directory,
 * mode 0600 (it holds tokens), replaced atomically. Two processes (the app and a `wait` in another
 * terminal) may write at once: each change re-reads the file under a short lock file and renames a
 * complete new file into place, so neither loses the other's address.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { appPaths } from './paths';
import { removeStaleTemps, withFileLock } from './file-lock';
import { readPrivateFile, writePrivateFile } from './secure-file';
import { isProviderId, type ProviderId, type Session } from '../model/mail-types';
import { normalizeBaseUrl } from '../model/service-url';

export const SESSIONS_FILE = 'sessions.json';
// Enough for anyone's live addresses; the oldest go first past it so the file cannot grow without bound.
const MAX_SAVED = 200;

/**
 * A saved address: the session plus the provider and service it belongs to. The token and the password
 * (mail.tm) are secret: never print them.
 */
export interface SavedSession extends Session {
  /** The provider it lives on (addresses saved before providers existed are tempmail's). */
  provider: ProviderId;
  /** The service's base URL, normalized (see normalizeBaseUrl), or an opaque key such as "local". */
  baseUrl: string;
  createdAt: Date;
  /**
   * When the service last answered that it does not know this token (401) although it had not expired:
   * its data was wiped, or it is another service on the same URL. Kept, not pruned: a service restored
   * from backup knows it again, and a success clears the mark.
   */
  refusedAt?: Date;
  /**
   * When the app last opened it (created, resumed or switched to): the picker highlights the one used
   * last. Absent in files written before it was kept: then its creation counts.
   */
  usedAt?: Date;
}

export interface SavedSessionStore {
  /** The file, for messages ("saved in ..."). */
  readonly file: string;
  /**
   * Live sessions (expiry after `now`, or none), newest first; only those of `baseUrl` (on `provider`,
   * default tempmail) when given. Prunes expired ones.
   */
  listLive(now?: Date, baseUrl?: string, provider?: ProviderId): SavedSession[];
  /** Saves (or replaces, same address, provider and service) a session. */
  save(session: Session, baseUrl: string, provider?: ProviderId): SavedSession;
  /** Forgets an address of a service; true when it was saved. */
  forget(email: string, baseUrl: string, provider?: ProviderId): boolean;
  /** Keeps the token a new sign-in gave a saved address (mail.tm); true when it was saved. */
  setToken(email: string, baseUrl: string, token: string, provider?: ProviderId): boolean;
  /** Marks an address the service refused (`at`), or clears the mark (null); true when it was saved. */
  markRefused(email: string, baseUrl: string, at: Date | null, provider?: ProviderId): boolean;
  /** Records that the app opened an address now (`at`); true when it was saved. */
  markUsed(email: string, baseUrl: string, at: Date, provider?: ProviderId): boolean;
}

export interface SavedSessionOptions {
  /** Directory of sessions.json; default the state dir of `appPaths(env)`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** Clock for createdAt and for pruning when no `now` is passed (tests inject one). */
  clock?: () => Date;
}

interface StoredSession {
  email: string;
  token: string;
  /** null: an address with no expiry (a mail.tm account). */
  expiresAt: string | null;
  /** Absent in files written before providers: tempmail. */
  provider?: ProviderId;
  baseUrl: string;
  password?: string;
  accountId?: string;
  createdAt: string;
  refusedAt?: string;
  usedAt?: string;
}

/** Opens the saved-session store (nothing is read until asked). */
export function openSavedSessions(options: SavedSessionOptions = {}): SavedSessionStore {
  const dir = options.dir ?? appPaths(options.env).state;
  const file = join(dir, SESSIONS_FILE);
  const clock = options.clock ?? (() => new Date());

  const mutate = (now: Date, change: (list: StoredSession[]) => StoredSession[]): void => {
    // `.sessions.json.lock`, the short lock two app windows take turns with (file-lock.ts).
    withFileLock(dir, SESSIONS_FILE, () => {
      const { sessions, corrupt } = load(file);
      // A file we cannot parse is kept aside (it may hold a token the user still wants), not overwritten.
      if (corrupt) renameSync(file, `${file}.corrupt-${now.getTime()}`);
      const next = change(prune(sessions, now));
      writePrivateFile(file, `${JSON.stringify({ version: 1, sessions: next }, null, 2)}\n`);
      // A crashed write's temp file holds tokens too; it should not outlive them.
      removeStaleTemps(dir, SESSIONS_FILE);
    });
  };

  // Rewrites the one entry of an address; true when it was saved.
  const change = (
    email: string,
    baseUrl: string,
    provider: ProviderId,
    update: (s: StoredSession) => StoredSession,
  ): boolean => {
    let found = false;
    const key = normalizeBaseUrl(baseUrl);
    mutate(clock(), (list) =>
      list.map((s) => {
        if (!sameAddress(s, email, key, provider)) return s;
        found = true;
        return update(s);
      }),
    );
    return found;
  };

  return {
    file,
    listLive(now = clock(), baseUrl, provider = 'tempmail') {
      const { sessions, corrupt } = load(file);
      const live = prune(sessions, now);
      if (live.length !== sessions.length && !corrupt) mutate(now, (list) => list);
      const key = baseUrl === undefined ? undefined : normalizeBaseUrl(baseUrl);
      return live
        .filter((s) => key === undefined || (s.baseUrl === key && providerOf(s) === provider))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .map(toSaved);
    },
    save(session, baseUrl, provider = 'tempmail') {
      const now = clock();
      const entry: StoredSession = {
        email: session.email,
        token: session.token,
        expiresAt: session.expiresAt === null ? null : session.expiresAt.toISOString(),
        provider,
        baseUrl: normalizeBaseUrl(baseUrl),
        ...(session.password !== undefined ? { password: session.password } : {}),
        ...(session.accountId !== undefined ? { accountId: session.accountId } : {}),
        createdAt: now.toISOString(),
        // Created is used: a new address is the one to resume next time.
        usedAt: now.toISOString(),
      };
      mutate(now, (list) =>
        [entry, ...list.filter((s) => !sameAddress(s, entry.email, entry.baseUrl, provider))].slice(0, MAX_SAVED),
      );
      return toSaved(entry);
    },
    forget(email, baseUrl, provider = 'tempmail') {
      let found = false;
      const key = normalizeBaseUrl(baseUrl);
      mutate(clock(), (list) => {
        const kept = list.filter((s) => !sameAddress(s, email, key, provider));
        found = kept.length !== list.length;
        return kept;
      });
      return found;
    },
    setToken(email, baseUrl, token, provider = 'tempmail') {
      return change(email, baseUrl, provider, (s) => (s.token === token ? s : { ...s, token }));
    },
    markRefused(email, baseUrl, at, provider = 'tempmail') {
      return change(email, baseUrl, provider, (s) => {
        const { refusedAt: _old, ...rest } = s;
        return at === null ? rest : { ...rest, refusedAt: at.toISOString() };
      });
    },
    markUsed(email, baseUrl, at, provider = 'tempmail') {
      return change(email, baseUrl, provider, (s) => ({ ...s, usedAt: at.toISOString() }));
    },
  };
}

// Defined in model/ (the client compares provider refs with the same spelling), offered here as before.
export { normalizeBaseUrl };

function load(file: string): { sessions: StoredSession[]; corrupt: boolean } {
  const text = readPrivateFile(file);
  if (text === null) return { sessions: [], corrupt: false };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { sessions: [], corrupt: true };
  }
  const list = (data as { sessions?: unknown } | null)?.sessions;
  if (!Array.isArray(list)) return { sessions: [], corrupt: true };
  // An entry of the wrong shape (a hand edit, a future version) is dropped, not fatal.
  return { sessions: list.filter(isStored), corrupt: false };
}

function isStored(value: unknown): value is StoredSession {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.email === 'string' &&
    typeof v.token === 'string' &&
    typeof v.baseUrl === 'string' &&
    (v.expiresAt === null || (typeof v.expiresAt === 'string' && !Number.isNaN(Date.parse(v.expiresAt)))) &&
    (v.provider === undefined || (typeof v.provider === 'string' && isProviderId(v.provider))) &&
    (v.password === undefined || typeof v.password === 'string') &&
    (v.accountId === undefined || typeof v.accountId === 'string') &&
    typeof v.createdAt === 'string' &&
    !Number.isNaN(Date.parse(v.createdAt))
  );
}

const providerOf = (s: StoredSession): ProviderId => s.provider ?? 'tempmail';

function prune(list: StoredSession[], now: Date): StoredSession[] {
  return list.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime());
}

function sameAddress(s: StoredSession, email: string, baseUrl: string, provider: ProviderId): boolean {
  return s.email.toLowerCase() === email.toLowerCase() && s.baseUrl === baseUrl && providerOf(s) === provider;
}

function validDate(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

function toSaved(s: StoredSession): SavedSession {
  return {
    email: s.email,
    token: s.token,
    expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt),
    provider: providerOf(s),
    baseUrl: s.baseUrl,
    ...(s.password !== undefined ? { password: s.password } : {}),
    ...(s.accountId !== undefined ? { accountId: s.accountId } : {}),
    createdAt: new Date(s.createdAt),
    // Only a note: one that is not a date is ignored, never a reason to drop the address and its token.
    ...(validDate(s.refusedAt) ? { refusedAt: new Date(s.refusedAt) } : {}),
    ...(validDate(s.usedAt) ? { usedAt: new Date(s.usedAt) } : {}),
  };
}
