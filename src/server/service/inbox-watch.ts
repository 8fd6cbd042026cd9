/**
 * Watchers of inboxes: the app's own local service tells the app of new mail at once instead of the
 * app waiting for its next poll, and GET /events tells a remote client (src/server/http/events.ts).
 * Keyed by the token's hash (what a stored session carries); a watcher's failure is its own, never the
 * delivery's.
 */
export interface InboxWatch {
  /**
   * Calls `onMail` each time mail is stored for the session of `tokenHash`, and `onGone` if the session
   * is deleted (by any service on the store); returns the stop.
   */
  watch(tokenHash: string, onMail: () => void, onGone?: () => void): () => void;
  /** Tells the watchers of these sessions (by token hash) that mail was stored for them. */
  announce(tokenHashes: Iterable<string>): void;
  /** Tells every watcher that mail may have come (news of it may have been missed). */
  announceAll(): void;
  /** Tells the watchers of these sessions (by token hash) that their session was deleted. */
  gone(tokenHashes: Iterable<string>): void;
  /** The token hashes watched now. */
  watched(): string[];
}

function tell(listener: () => void): void {
  try {
    listener();
  } catch {
    // The mail is stored whatever a watcher does with the news.
  }
}

export function createInboxWatch(): InboxWatch {
  const watchers = new Map<string, Set<() => void>>();
  const goneListeners = new WeakMap<() => void, () => void>();
  return {
    watch(tokenHash, onMail, onGone) {
      const listeners = watchers.get(tokenHash) ?? new Set();
      watchers.set(tokenHash, listeners);
      // A function of its own, so the same listener given twice is two watches.
      const listener = () => onMail();
      if (onGone) goneListeners.set(listener, onGone);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && watchers.get(tokenHash) === listeners) watchers.delete(tokenHash);
      };
    },
    announce(tokenHashes) {
      if (watchers.size === 0) return;
      for (const hash of tokenHashes) for (const listener of watchers.get(hash) ?? []) tell(listener);
    },
    announceAll() {
      for (const listeners of [...watchers.values()]) for (const listener of [...listeners]) tell(listener);
    },
    watched() {
      return [...watchers.keys()];
    },
    gone(tokenHashes) {
      for (const hash of tokenHashes) {
        for (const listener of [...(watchers.get(hash) ?? [])]) {
          const onGone = goneListeners.get(listener);
          if (onGone) tell(onGone);
        }
      }
    },
  };
}
