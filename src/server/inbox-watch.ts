/**
 * In-process watchers of inboxes: the app's own local service tells the app of new mail at once
 * instead of the app waiting for its next poll. Keyed by the token's hash (what a stored session
 * carries); a watcher's failure is its own, never the delivery's.
 */
export interface InboxWatch {
  /** Calls `onMail` each time mail is stored for the session of `tokenHash`; returns the stop. */
  watch(tokenHash: string, onMail: () => void): () => void;
  /** Tells the watchers of these sessions (by token hash) that mail was stored for them. */
  announce(tokenHashes: Iterable<string>): void;
}

export function createInboxWatch(): InboxWatch {
  const watchers = new Map<string, Set<() => void>>();
  return {
    watch(tokenHash, onMail) {
      const listeners = watchers.get(tokenHash) ?? new Set();
      watchers.set(tokenHash, listeners);
      // A function of its own, so the same listener given twice is two watches.
      const listener = () => onMail();
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && watchers.get(tokenHash) === listeners) watchers.delete(tokenHash);
      };
    },
    announce(tokenHashes) {
      if (watchers.size === 0) return;
      for (const hash of tokenHashes) {
        for (const listener of watchers.get(hash) ?? []) {
          try {
            listener();
          } catch {
            // The mail is stored whatever a watcher does with the news.
          }
        }
      }
    },
  };
}
