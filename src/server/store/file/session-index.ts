/**
 * The file store's in-memory lookup of its sessions: by id, by token hash and by address key. Where
 * two stored sessions share an address key (an expired one not yet purged and its successor), the
 * newest holds the address, and the older one holds it again if the newest is deleted first.
 */
import type { StoredSession } from '../store';

/** The entries of a SessionIndex: a session record, plus whatever the store keeps beside it. */
export interface IndexedSession {
  session: StoredSession;
}

/** Sessions by id, token hash and address key. */
export class SessionIndex<E extends IndexedSession> {
  private readonly byId = new Map<string, E>();
  private readonly byToken = new Map<string, string>();
  private readonly byAddress = new Map<string, string>();

  /** The entry of session `id`. */
  get(id: string | undefined): E | undefined {
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** The entry of the session with this token hash. */
  withToken(tokenHash: string): E | undefined {
    return this.get(this.byToken.get(tokenHash));
  }

  /** The entry of the session holding this address key. */
  withAddress(addressKey: string): E | undefined {
    return this.get(this.byAddress.get(addressKey));
  }

  /** Every entry, in no particular order. */
  values(): IterableIterator<E> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  /** Indexes `session`: updates the entry of a known id (keys and record), or adds the one `create` makes. */
  put(session: StoredSession, create: () => E): E {
    const old = this.byId.get(session.id);
    if (old) {
      this.byToken.delete(old.session.tokenHash);
      if (this.byAddress.get(old.session.addressKey) === session.id) this.byAddress.delete(old.session.addressKey);
    }
    const entry = old ?? create();
    entry.session = session;
    this.byId.set(session.id, entry);
    this.byToken.set(session.tokenHash, session.id);
    const holder = this.withAddress(session.addressKey);
    if (!holder || holder.session.createdAt <= session.createdAt) this.byAddress.set(session.addressKey, session.id);
    return entry;
  }

  /** Forgets `entry`'s session. */
  remove(entry: E): void {
    const s = entry.session;
    this.byId.delete(s.id);
    if (this.byToken.get(s.tokenHash) === s.id) this.byToken.delete(s.tokenHash);
    if (this.byAddress.get(s.addressKey) !== s.id) return;
    this.byAddress.delete(s.addressKey);
    // Rare: an older session with the same key is still stored; it holds the address again.
    let next: StoredSession | undefined;
    for (const e of this.byId.values()) {
      if (e.session.addressKey === s.addressKey && (!next || e.session.createdAt >= next.createdAt)) next = e.session;
    }
    if (next) this.byAddress.set(next.addressKey, next.id);
  }
}
