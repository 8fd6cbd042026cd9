/**
 * The persistent Store: plain files under a data directory (no native modules). FileSessions
 * (file-sessions.ts) keeps the sessions, read at open; this adds their inboxes, each read the first time
 * it is used (file-inbox.ts), so opening does not grow with the messages stored.
 *
 *   DATA/sessions/<sessionId>.json      one session record
 *   DATA/messages/<sessionId>/<n>.msg   one message (message-file.ts)
 *
 * Session and other records appear by temp-write + fsync + link/rename + directory fsync
 * (durable-fs.ts), so after `kill -9` one is either whole or absent. Message files are created under
 * their final names, never over an existing one, and are acknowledged only once fdatasync'd with their
 * directory fsync'd (in batches, group-commit.ts): an acknowledged message is never lost, never
 * half-written and never doubled, and one a crash cut short was never acknowledged. Reading an inbox
 * removes temp leftovers and sets damaged entries (a cut-short message among them) aside as *.corrupt
 * (file-store-load.ts). Directories are 0700, files 0600.
 *
 * One service runs per data dir (service.lock), so operations that must be atomic (claiming an address,
 * the inbox limit) are atomic within this process: counted and reserved with no await between.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appendToAll,
  listInbox,
  loadInbox,
  readSection,
  removeMessage,
  writeMessage,
  type InboxEntry,
} from './file-inbox';
import { FileSessions, type FileStoreOptions } from './file-sessions';
import { metaCopy } from './file-store-load';
import { GroupCommit } from './group-commit';
import { parseBody } from './message-file';
import { messageFilter } from '../../mail/match';
import {
  joinedReads,
  UnknownSessionError,
  type Delivery,
  type FoundMessage,
  type MessageFilter,
  type NewMessage,
  type RecipientInbox,
  type SessionInbox,
  type Store,
  type StorageUsage,
  type StoredMessage,
  type StoredMessageMeta,
} from '../store';

export type { FileStoreOptions } from './file-sessions';

/** The file-backed Store. */
export class FileStore extends FileSessions implements Store {
  private readonly commit: GroupCommit;
  /** Names this store's inbox versions: a version of an earlier run never equals one of this run. */
  private readonly epoch = randomBytes(6).toString('hex');

  constructor(dataDir: string, options: FileStoreOptions = {}) {
    super(dataDir, options);
    this.commit = new GroupCommit(options.onBatch);
  }

  /** The entry of `sessionId` with its messages read from disk (the first use reads them; once). */
  private async inbox(sessionId: string): Promise<InboxEntry | undefined> {
    this.check();
    const entry = this.sessions.get(sessionId);
    if (entry && !entry.loaded) await loadInbox(entry, this.logOnce);
    return entry;
  }

  addMessage(sessionId: string, input: NewMessage): Promise<StoredMessageMeta> {
    return this.track(async () => {
      const entry = await this.inbox(sessionId);
      if (!entry) throw new UnknownSessionError();
      if (entry.loadError) throw entry.loadError;
      entry.adding++;
      return writeMessage(entry, input, this.messagesDir, this.commit).finally(() => entry.adding--);
    });
  }

  deliver(sessionIds: readonly string[], input: NewMessage, inboxLimit: number): Promise<Delivery> {
    return this.track(async () => {
      const wanted = [...new Set(sessionIds)];
      await Promise.all(wanted.map((id) => this.inbox(id)));
      const entries: InboxEntry[] = [];
      const gone: string[] = [];
      for (const id of wanted) {
        const entry = this.sessions.get(id);
        if (!entry) gone.push(id);
        else if (entry.loadError) throw entry.loadError;
        else entries.push(entry);
      }
      return { ...(await appendToAll(entries, input, inboxLimit, this.messagesDir, this.commit, this.log)), gone };
    });
  }

  async listMessages(sessionId: string): Promise<StoredMessageMeta[]> {
    return listInbox(await this.inbox(sessionId));
  }

  async countMessages(sessionId: string): Promise<number> {
    return (await this.inbox(sessionId))?.messages.size ?? 0;
  }

  async inboxVersion(sessionId: string): Promise<string | undefined> {
    this.check();
    const entry = this.sessions.get(sessionId);
    return entry && `${this.epoch}.${entry.version}`;
  }

  recipientInbox(addressKey: string): Promise<RecipientInbox | undefined> {
    return joinedReads.recipientInbox(this, addressKey);
  }

  inboxByTokenHash(tokenHash: string): Promise<SessionInbox | undefined> {
    return joinedReads.inboxByTokenHash(this, tokenHash);
  }

  private async section(sessionId: string, id: number, index: number): Promise<Buffer | undefined> {
    return readSection(await this.inbox(sessionId), id, index);
  }

  async getMessage(sessionId: string, id: number): Promise<StoredMessage | undefined> {
    const layout = (await this.inbox(sessionId))?.messages.get(id);
    const body = await this.section(sessionId, id, 0);
    if (!layout || !body) return undefined;
    return { ...metaCopy(layout.meta), ...parseBody(body) };
  }

  rawMessage(sessionId: string, id: number): Promise<Buffer | undefined> {
    return this.section(sessionId, id, 1);
  }

  async attachmentBytes(sessionId: string, id: number, attachmentId: number): Promise<Buffer | undefined> {
    if (!Number.isSafeInteger(attachmentId) || attachmentId < 1) return undefined;
    return this.section(sessionId, id, attachmentId + 1);
  }

  deleteMessage(sessionId: string, id: number): Promise<boolean> {
    return this.track(async () => removeMessage(await this.inbox(sessionId), id));
  }

  /**
   * The message files under messages/, counted and their sizes added up: one directory read per inbox
   * and one stat per file (inboxes not loaded stay unloaded). Files that go while it walks are skipped.
   */
  async usage(): Promise<StorageUsage> {
    this.check();
    let messages = 0;
    let bytes = 0;
    const dirs = await readdir(this.messagesDir, { withFileTypes: true }).catch(() => []);
    for (const dir of dirs) {
      if (!dir.isDirectory()) continue;
      const path = join(this.messagesDir, dir.name);
      const names = (await readdir(path).catch(() => [])).filter((n) => /^\d{1,15}\.msg$/.test(n));
      const sizes = await Promise.all(
        names.map((n) =>
          stat(join(path, n)).then(
            (s) => s.size,
            () => -1,
          ),
        ),
      );
      for (const size of sizes) {
        if (size < 0) continue;
        messages++;
        bytes += size;
      }
    }
    return { messages, bytes };
  }

  /** Every inbox with its messages read (those not read yet are read now, a few at a time). */
  private async allInboxes(): Promise<InboxEntry[]> {
    const entries = [...this.sessions.values()];
    for (let i = 0; i < entries.length; i += 16)
      await Promise.all(entries.slice(i, i + 16).map((e) => this.inbox(e.session.id)));
    return entries.filter((e) => !e.removed);
  }

  async findMessages(filter: MessageFilter, limit: number): Promise<FoundMessage[]> {
    const matches = messageFilter(filter);
    const found: FoundMessage[] = [];
    for (const entry of await this.allInboxes()) {
      for (const layout of entry.messages.values())
        if (matches(layout.meta)) found.push({ session: { ...entry.session }, message: metaCopy(layout.meta) });
    }
    return found.sort((a, b) => b.message.receivedAt - a.message.receivedAt).slice(0, limit);
  }
}

/** Opens a FileStore on `dataDir` (created if needed). */
export async function openFileStore(dataDir: string, options?: FileStoreOptions): Promise<FileStore> {
  const store = new FileStore(dataDir, options);
  await store.open();
  return store;
}
