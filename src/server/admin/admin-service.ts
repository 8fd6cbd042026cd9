/**
 * What the admin API does (abuse handling), over the same Store as the mail service: how much is stored,
 * finding sessions and messages by recipient, sender or client address, deleting a session or a
 * message, and the blocks (blocks.ts) the SMTP front end applies. Who did what is logged by the routes
 * (admin-audit.ts), which know the actor. Store failures are ServiceError('storage_unavailable'), as everywhere.
 */
import { recipientKey } from '../mail/addresses';
import type { Clock, ServerConfig } from '../config/server-config';
import { ServiceError } from '../service/service-types';
import { ipRange, messageFilter } from '../mail/match';
import {
  storageErrorText,
  type Block,
  type BlockKind,
  type FoundMessage,
  type Store,
  type StorageUsage,
  type StoredMessageMeta,
  type StoredSession,
} from '../store/store';
import { BlockRules, parseBlock } from './blocks';
import { logEvent } from '../observe/log';

/** What the admin API searches by; every part given must match. */
export interface AdminFilter {
  /** An address the service hands out (any of its forms: letter case, +tag, dots of a dot-insensitive account). */
  recipient?: string;
  /** An address, or a domain with its subdomains (the From address or the envelope sender). */
  sender?: string;
  /** An IP address or CIDR range the message came from. */
  clientIp?: string;
}

export interface AdminSession {
  session: StoredSession;
  /** Messages it holds. */
  messages: number;
}

export interface AdminService {
  /** The blocks in effect, for the SMTP front end. */
  readonly rules: BlockRules;
  /** Reads the blocks from the store again (a failure is logged; the ones in effect stay). */
  refreshBlocks(): Promise<void>;
  /** Sessions, stored messages and their bytes (Store.usage), and the blocks in effect. */
  stats(): Promise<StorageUsage & { sessions: number; blocks: number }>;
  sessions(filter: AdminFilter, limit: number): Promise<AdminSession[]>;
  messages(filter: AdminFilter, limit: number): Promise<FoundMessage[]>;
  deleteSession(id: string): Promise<boolean>;
  deleteMessage(sessionId: string, id: number): Promise<boolean>;
  blocks(): Promise<Block[]>;
  /** Adds a block; false when it was there already. Throws bad_request for a kind or value that is not one. */
  block(kind: unknown, value: unknown): Promise<{ block: Block; added: boolean }>;
  unblock(kind: unknown, value: unknown): Promise<boolean>;
}

export interface AdminServiceDeps {
  store: Store;
  config: ServerConfig;
  clock: Clock;
  log: (line: string) => void;
  /** Mail was deleted: the storage cap measures again before it next refuses (room is seen at once). */
  onFreed?: () => void;
}

const bad = (message: string) => new ServiceError('bad_request', message);

/** The checked filter: a client address that is neither an address nor a range is refused, not "nothing found". */
function checkFilter(filter: AdminFilter): AdminFilter {
  if (filter.recipient === undefined && filter.sender === undefined && filter.clientIp === undefined) {
    throw bad('Give recipient, sender or client_ip');
  }
  if (filter.clientIp !== undefined && !ipRange(filter.clientIp))
    throw bad('client_ip must be an IP address or a CIDR range');
  for (const [name, value] of [
    ['recipient', filter.recipient],
    ['sender', filter.sender],
  ] as const) {
    if (value !== undefined && value.trim() === '') throw bad(`${name} must not be empty`);
  }
  return filter;
}

export function createAdminService(deps: AdminServiceDeps): AdminService {
  const { store, config, clock, log } = deps;
  const rules = new BlockRules();

  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // The reason is the log's: no answer carries an internal detail (an errno, a path, an address).
      logEvent(log, {
        level: 'error',
        event: 'admin.storage_failed',
        text: `admin: storage failed: ${storageErrorText(error)}`,
        jsonFields: { reason: storageErrorText(error) },
      });
      throw new ServiceError('storage_unavailable', 'Mail storage is unavailable; try again later');
    }
  }

  /** The session holding `recipient`, if any (also on a domain no longer served: its address as given). */
  async function sessionOf(recipient: string): Promise<StoredSession | undefined> {
    const key =
      recipientKey({ domains: config.domains, extmailAccounts: config.extmailAccounts }, recipient.trim()) ??
      recipient.trim().toLowerCase();
    return guarded(() => store.findSessionByAddress(key));
  }

  async function messages(filter: AdminFilter, limit: number): Promise<FoundMessage[]> {
    checkFilter(filter);
    const { sender, clientIp } = filter;
    if (filter.recipient === undefined) return guarded(() => store.findMessages({ sender, clientIp }, limit));
    const session = await sessionOf(filter.recipient);
    if (!session) return [];
    // One inbox: its listing, filtered here as the stores filter (match.ts).
    const matches = messageFilter({ sender, clientIp });
    const list: StoredMessageMeta[] = (await guarded(() => store.listMessages(session.id))).filter(matches);
    return list
      .reverse()
      .slice(0, limit)
      .map((message) => ({ session, message }));
  }

  async function refreshBlocks(): Promise<void> {
    try {
      rules.replace(await store.listBlocks());
    } catch (error) {
      const text = `blocks: could not read them (${storageErrorText(error)}); the ones in effect stay`;
      logEvent(log, {
        level: 'error',
        event: 'blocks.read_failed',
        text,
        jsonFields: { reason: storageErrorText(error) },
      });
    }
  }

  return {
    rules,
    refreshBlocks,

    async stats() {
      const [sessions, usage] = await Promise.all([guarded(() => store.countSessions()), guarded(() => store.usage())]);
      return { sessions, ...usage, blocks: rules.size };
    },

    async sessions(filter, limit) {
      if (filter.recipient !== undefined && filter.sender === undefined && filter.clientIp === undefined) {
        checkFilter(filter);
        const session = await sessionOf(filter.recipient);
        return session ? [{ session, messages: await guarded(() => store.countMessages(session.id)) }] : [];
      }
      // Sessions that hold a matching message, newest message first, each once.
      const found = await messages(filter, 10_000);
      const out = new Map<string, AdminSession>();
      for (const { session } of found) {
        if (out.size >= limit) break;
        if (!out.has(session.id))
          out.set(session.id, { session, messages: await guarded(() => store.countMessages(session.id)) });
      }
      return [...out.values()];
    },

    messages,

    async deleteSession(id) {
      const removed = await guarded(() => store.deleteSession(id));
      if (removed) deps.onFreed?.();
      return removed;
    },

    async deleteMessage(sessionId, id) {
      const removed = await guarded(() => store.deleteMessage(sessionId, id));
      if (removed) deps.onFreed?.();
      return removed;
    },

    blocks: () => guarded(() => store.listBlocks()),

    async block(kind, value) {
      const parsed = parseBlock(kind, value);
      if ('error' in parsed) throw bad(parsed.error);
      const block: Block = { ...parsed, createdAt: clock() };
      const added = await guarded(() => store.putBlock(block));
      await refreshBlocks();
      return { block, added };
    },

    async unblock(kind, value) {
      const parsed = parseBlock(kind, value);
      if ('error' in parsed) throw bad(parsed.error);
      const removed = await guarded(() => deleteBlock(store, parsed));
      await refreshBlocks();
      return removed;
    },
  };
}

/**
 * Deletes the block `wanted`, and every block kept in another spelling of the same value (written by hand,
 * or by a version that kept what it was given: ::ffff:203.0.113.5, Bücher.example), each of which blocks
 * the same; whether any went.
 */
async function deleteBlock(store: AdminServiceDeps['store'], wanted: { kind: BlockKind; value: string }) {
  let any = await store.deleteBlock(wanted.kind, wanted.value);
  for (const b of sameBlocks(await store.listBlocks(), wanted)) any = (await store.deleteBlock(b.kind, b.value)) || any;
  return any;
}

/** The blocks kept in another spelling of `wanted` (the same kind and, read again, the same value). */
function sameBlocks(blocks: readonly Block[], wanted: { kind: BlockKind; value: string }): Block[] {
  return blocks.filter((b) => {
    if (b.kind !== wanted.kind || b.value === wanted.value) return false;
    const read = parseBlock(b.kind, b.value);
    return !('error' in read) && read.value === wanted.value;
  });
}
