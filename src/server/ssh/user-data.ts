/**
 * One SSH user's saved addresses and read marks, as the app's stores (SavedSessionStore, ReadStateStore)
 * take them: held in memory while the user is connected, read from the service's data (ssh-kv.ts) when
 * they connect, written back after each change, so the next connection, to any instance, opens them
 * again. The user is their public key's fingerprint; an anonymous user's stores are never written.
 */
import type { SavedSession, SavedSessionStore } from '../../state/saved-sessions';
import type { ReadStateStore } from '../../state/read-state';
import type { ProviderId, Session } from '../../model/mail-types';
import type { SshKv } from './ssh-kv';
import { logEvent } from '../observe/log';

const MAX_SESSIONS = 200;
const MAX_READ_ADDRESSES = 200;
const MAX_READ_IDS = 2000;

interface Kept {
  sessions: (Omit<SavedSession, 'expiresAt' | 'createdAt' | 'usedAt' | 'refusedAt'> & {
    expiresAt: string | null;
    createdAt: string;
    usedAt?: string;
    refusedAt?: string;
  })[];
  read: Record<string, string[]>;
}

export interface UserData {
  sessions: SavedSessionStore;
  readMarks: ReadStateStore;
  /** Resolves once every change so far is written. */
  flushed(): Promise<void>;
}

const revive = (k: Kept['sessions'][number]): SavedSession =>
  ({
    ...k,
    expiresAt: k.expiresAt === null ? null : new Date(k.expiresAt),
    createdAt: new Date(k.createdAt),
    usedAt: k.usedAt ? new Date(k.usedAt) : undefined,
    refusedAt: k.refusedAt ? new Date(k.refusedAt) : undefined,
  }) as SavedSession;

function parseKept(text: string | undefined): { sessions: SavedSession[]; read: Map<string, string[]> } {
  try {
    const kept = text === undefined ? undefined : (JSON.parse(text) as Kept);
    return { sessions: (kept?.sessions ?? []).map(revive), read: new Map(Object.entries(kept?.read ?? {})) };
  } catch {
    return { sessions: [], read: new Map() };
  }
}

/** The stores of the user `name` ("key SHA256:..."), or of an anonymous user when `name` is undefined. */
export async function openUserData(
  kv: SshKv,
  name: string | undefined,
  log: (line: string) => void,
): Promise<UserData> {
  const { sessions, read } = parseKept(name === undefined ? undefined : await kv.get(name));
  let writing = Promise.resolve();
  const changed = () => {
    if (name === undefined) return;
    const text = JSON.stringify({ sessions, read: Object.fromEntries(read) });
    writing = writing
      .then(() => kv.put(name, text))
      .catch((error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        logEvent(log, {
          level: 'error',
          event: 'ssh.save_failed',
          text: `ssh: saving a user's addresses failed: ${why}`,
          jsonFields: { reason: why },
        });
      });
  };
  return { sessions: savedStore(sessions, changed), readMarks: readStore(read, changed), flushed: () => writing };
}

const same = (s: SavedSession, email: string, baseUrl: string, provider: ProviderId = 'tempmail') =>
  s.email.toLowerCase() === email.toLowerCase() && s.baseUrl === baseUrl && s.provider === provider;

function savedStore(list: SavedSession[], changed: () => void): SavedSessionStore {
  const update = (
    email: string,
    baseUrl: string,
    provider: ProviderId | undefined,
    change: (s: SavedSession) => void,
  ) => {
    const found = list.find((s) => same(s, email, baseUrl, provider));
    if (found) {
      change(found);
      changed();
    }
    return found !== undefined;
  };
  return {
    file: 'this service (your key)',
    listLive(now = new Date(), baseUrl, provider = 'tempmail') {
      const live = list.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime());
      if (live.length !== list.length) list.splice(0, list.length, ...live);
      return live
        .filter((s) => baseUrl === undefined || (s.baseUrl === baseUrl && s.provider === provider))
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    },
    save(session: Session, baseUrl: string, provider: ProviderId = 'tempmail') {
      const saved: SavedSession = { ...session, provider, baseUrl, createdAt: new Date() };
      const at = list.findIndex((s) => same(s, session.email, baseUrl, provider));
      if (at >= 0) list.splice(at, 1);
      list.push(saved);
      if (list.length > MAX_SESSIONS) list.splice(0, list.length - MAX_SESSIONS);
      changed();
      return saved;
    },
    forget(email, baseUrl, provider) {
      const at = list.findIndex((s) => same(s, email, baseUrl, provider));
      if (at >= 0) list.splice(at, 1);
      if (at >= 0) changed();
      return at >= 0;
    },
    setToken: (email, baseUrl, token, provider) => update(email, baseUrl, provider, (s) => (s.token = token)),
    markRefused: (email, baseUrl, at, provider) =>
      update(email, baseUrl, provider, (s) => (s.refusedAt = at ?? undefined)),
    markUsed: (email, baseUrl, at, provider) => update(email, baseUrl, provider, (s) => (s.usedAt = at)),
  };
}

function readStore(read: Map<string, string[]>, changed: () => void): ReadStateStore {
  const key = (service: string, email: string) => `${service} ${email.toLowerCase()}`;
  return {
    file: 'this service (your key)',
    load: (service, email) => new Set(read.get(key(service, email)) ?? []),
    save(service, email, _expiresAt, ids, listed) {
      const k = key(service, email);
      const marks = new Set(read.get(k) ?? []);
      for (const id of ids) marks.add(id);
      let kept = [...marks].filter((id) => listed === undefined || listed.has(id));
      if (kept.length > MAX_READ_IDS) kept = kept.slice(-MAX_READ_IDS);
      read.delete(k);
      read.set(k, kept);
      while (read.size > MAX_READ_ADDRESSES) read.delete(read.keys().next().value!);
      changed();
    },
    forget(service, email) {
      if (read.delete(key(service, email))) changed();
    },
  };
}
