/**
 * Which messages were opened, per saved address: `read-state.json` in the XDG state directory, beside
 * sessions.json and as private (0600, replaced atomically, changed under a short lock so two app windows
 * on one address both keep their marks). A file of its own: it changes on every opened message, and
 * the saved-sessions file (tokens) is better left alone that often.
 *
 * Bounded: an address's marks go when it expires or is forgotten, at most MAX_ADDRESSES addresses are
 * kept (the least recently changed go first) and MAX_IDS ids per address (the oldest marks first).
 */
import { join } from 'node:path';
import type { MessageId } from '../model/mail-types';
import { appPaths } from './paths';
import { removeStaleTemps, withFileLock } from './file-lock';
import { readPrivateFile, writePrivateFile } from './secure-file';

export const READ_STATE_FILE = 'read-state.json';
/** As many addresses as sessions.json keeps. */
export const MAX_ADDRESSES = 200;
/** Four full inboxes of the reference service (500 each): enough for any temporary address. */
export const MAX_IDS = 2000;

export interface ReadStateStore {
  /** The file, for messages. */
  readonly file: string;
  /** Ids of the messages opened on this address; empty when none were, or its entry has expired. */
  load(serviceKey: string, email: string): Set<MessageId>;
  /**
   * Adds `ids` to the address's marks (what another window saved meanwhile stays). With `listed`, marks
   * of messages no longer listed (deleted) are dropped: ids are never reused for an address.
   */
  save(
    serviceKey: string,
    email: string,
    expiresAt: Date | null,
    ids: Iterable<MessageId>,
    listed?: ReadonlySet<MessageId>,
  ): void;
  /** Drops the address's marks (it was forgotten). */
  forget(serviceKey: string, email: string): void;
}

export interface ReadStateOptions {
  /** Directory of the file; default the state dir of `appPaths(env)`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** For expiry and the "last changed" order (tests inject one). */
  clock?: () => Date;
}

interface Entry {
  service: string;
  email: string;
  /** null: the address does not expire (mail.tm); it goes when forgotten, or as the least recently changed. */
  expiresAt: string | null;
  updatedAt: string;
  /** In the order they were marked; the oldest go first past MAX_IDS. */
  read: MessageId[];
}

/** Opens the store (nothing is read until asked). */
export function openReadState(options: ReadStateOptions = {}): ReadStateStore {
  const dir = options.dir ?? appPaths(options.env).state;
  const file = join(dir, READ_STATE_FILE);
  const clock = options.clock ?? (() => new Date());
  const same = (e: Entry, service: string, email: string) => e.service === service && e.email === email.toLowerCase();

  const mutate = (change: (entries: Entry[], now: Date) => Entry[]): void => {
    withFileLock(dir, READ_STATE_FILE, () => {
      const now = clock();
      const next = change(live(load(file), now), now)
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
        .slice(0, MAX_ADDRESSES);
      writePrivateFile(file, `${JSON.stringify({ version: 1, addresses: next })}\n`);
      removeStaleTemps(dir, READ_STATE_FILE);
    });
  };

  return {
    file,
    load(service, email) {
      const entry = live(load(file), clock()).find((e) => same(e, service, email));
      return new Set(entry?.read ?? []);
    },
    save(service, email, expiresAt, ids, listed) {
      mutate((entries, now) => {
        const old = entries.find((e) => same(e, service, email));
        const merged = [...new Set([...(old?.read ?? []), ...ids])].filter(
          (id) => isId(id) && (!listed || listed.has(id)),
        );
        const entry: Entry = {
          service,
          email: email.toLowerCase(),
          expiresAt: expiresAt ? expiresAt.toISOString() : null,
          updatedAt: now.toISOString(),
          read: merged.slice(-MAX_IDS),
        };
        return [entry, ...entries.filter((e) => e !== old)];
      });
    },
    forget(service, email) {
      mutate((entries) => entries.filter((e) => !same(e, service, email)));
    },
  };
}

// A file we cannot read as ours holds only read marks: it is started afresh rather than kept aside.
function load(file: string): Entry[] {
  const text = readPrivateFile(file);
  if (text === null) return [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const list = (data as { addresses?: unknown } | null)?.addresses;
  return Array.isArray(list) ? list.filter(isEntry) : [];
}

function live(entries: Entry[], now: Date): Entry[] {
  return entries.filter((e) => e.expiresAt === null || Date.parse(e.expiresAt) > now.getTime());
}

// A provider's id of a message: digits or hex in practice; anything else is not ours.
const isId = (value: unknown): value is MessageId => typeof value === 'string' && /^[\x21-\x7e]{1,200}$/.test(value);

function isEntry(value: unknown): value is Entry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.service === 'string' &&
    typeof v.email === 'string' &&
    (v.expiresAt === null || (typeof v.expiresAt === 'string' && !Number.isNaN(Date.parse(v.expiresAt)))) &&
    typeof v.updatedAt === 'string' &&
    Array.isArray(v.read) &&
    v.read.every(isId)
  );
}
