/**
 * Fetch claims (Store.claimFetch) kept in one process: the file store's (one service per data dir) and
 * the memory store's (twins on one MemoryData share one of these, as services share a database). A
 * claim is exclusive: a second one for the same account answers undefined until the first is released
 * or its owner closes, which counts as losing it (as a dead process loses a database lock).
 */
import type { FetchClaim } from './store';

interface Held {
  owner: object;
  lose: () => void;
}

/** The claims held in this process, by account. */
export class LocalClaims {
  private readonly held = new Map<string, Held>();

  /** A claim of `account` for `owner` (a store instance), or undefined when anyone holds it already. */
  claim(account: string, owner: object): FetchClaim | undefined {
    if (this.held.has(account)) return undefined;
    let lose!: () => void;
    const lost = new Promise<void>((resolve) => (lose = resolve));
    const entry: Held = { owner, lose };
    this.held.set(account, entry);
    return {
      lost,
      release: async () => {
        if (this.held.get(account) === entry) this.held.delete(account);
      },
    };
  }

  /** Every claim of `owner` is lost (its store closed). */
  loseAll(owner: object): void {
    for (const [account, entry] of this.held) {
      if (entry.owner !== owner) continue;
      this.held.delete(account);
      entry.lose();
    }
  }
}
