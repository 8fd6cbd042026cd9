/**
 * Connections at once (SMTP's, and HTTP's: src/server/serve/operations.ts): at most `total` in all, and at most
 * `perClient` from one client (rateLimitKey: an IPv4 address, an IPv6 /64). Without the second, one
 * client opening 200 idle connections locked every other sender out. Counted per instance: what is
 * protected is this instance's slots, and a connection lives and dies with it (nothing to clean up in a
 * shared store after a crash).
 *
 * A refusal is answered 421 by the caller; the log hears of each refused client at most once a minute,
 * with the count of its refusals since (a flood must not flood the log).
 */
import { rateLimitKey } from './rate-limit';

export interface ConnectionRules {
  /** Most connections at once, in all. */
  total: number;
  /** Most connections at once from one client; 0 = only the total counts. */
  perClient: number;
}

export type ConnectionVerdict = { ok: true } | { ok: false; reason: 'total' | 'per-client'; limit: number };

/** Clients whose refusals are being counted for the log at most; past it the oldest go. */
const MAX_QUIET = 10_000;
const LOG_EVERY_MS = 60_000;

export class ConnectionLimit {
  private readonly open = new Map<string, number>();
  /** Connection id -> the client it counts for (only those admitted). */
  private readonly admitted = new Map<string, string>();
  /** Per refused client: when its last line was written, and the refusals since. */
  private readonly quiet = new Map<string, { at: number; since: number }>();

  constructor(
    private rules: ConnectionRules,
    private readonly clock: () => number = Date.now,
  ) {}

  limits(): ConnectionRules {
    return { ...this.rules };
  }

  update(rules: Partial<ConnectionRules>): void {
    this.rules = { ...this.rules, ...rules };
  }

  /** Connections open now (admitted and not yet closed). */
  get size(): number {
    return this.admitted.size;
  }

  /**
   * A connection `id` from `address` arrived: admitted (and counted) or refused. `ownShare` false: it
   * counts in the total only (a proxy's connections carry many clients).
   */
  admit(id: string, address: string, ownShare = true): ConnectionVerdict {
    const client = rateLimitKey(address);
    if (this.admitted.size >= this.rules.total) return { ok: false, reason: 'total', limit: this.rules.total };
    const mine = this.open.get(client) ?? 0;
    if (ownShare && this.rules.perClient > 0 && mine >= this.rules.perClient)
      return { ok: false, reason: 'per-client', limit: this.rules.perClient };
    this.open.set(client, mine + 1);
    this.admitted.set(id, client);
    return { ok: true };
  }

  /** Connection `id` closed (admitted or not). */
  closed(id: string): void {
    const client = this.admitted.get(id);
    if (client === undefined) return;
    this.admitted.delete(id);
    const left = (this.open.get(client) ?? 1) - 1;
    if (left > 0) this.open.set(client, left);
    else this.open.delete(client);
  }

  /**
   * Whether a refusal of `address` is to be logged now: the first, then one a minute. Returns the count
   * of refusals not logged before this one (0 for the first), or undefined when this one is not logged.
   */
  shouldLog(address: string): number | undefined {
    const client = rateLimitKey(address);
    const now = this.clock();
    const seen = this.quiet.get(client);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.since++;
      return undefined;
    }
    // The map is kept in the order of `at` (a client named again moves to the end), so when it is full
    // the client named longest ago is the first: one deletion, however many addresses a flood brings.
    // Below the cap a record stays, so a client refused again after a quiet spell is named with its count.
    this.quiet.delete(client);
    if (this.quiet.size >= MAX_QUIET) this.quiet.delete(this.quiet.keys().next().value!);
    this.quiet.set(client, { at: now, since: 0 });
    return seen?.since ?? 0;
  }
}
