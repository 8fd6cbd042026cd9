/**
 * The per-client rates of the service: create-session calls, HTTP requests, SMTP messages (MAIL FROM) and
 * SMTP recipients (RCPT TO), each counted per client (rateLimitKey: an IPv4 address, an IPv6 /64) in a
 * sliding minute. The counts live in the store (Store.hitRateLimit), so instances sharing a database share
 * them: a client that spreads its flood over every instance meets one limit.
 *
 * A client the store refused is remembered here until the time it was told: its further attempts are
 * refused without asking the store again, so a flood costs the database one query per client per wait,
 * not one per request.
 *
 * A busy client's hits are taken from the store in blocks: one at a time at first, then twice as many
 * each time a block is used up within a second, up to a twentieth of the limit (and 500). Counting each request
 * of a busy client in the database doubled check-mail's latency under load; in blocks, a client sending
 * hundreds a second costs a few queries a second, and a quiet one is counted exactly. The price: a block
 * counts when it is taken, so a client that stops leaves at most one block counted unused (refused a
 * little early, never late), and the hits of a block are used within its minute.
 *
 * The rules can change while running (`update`, for a reload of the configuration).
 */
import { rateLimitKey } from './rate-limit';
import type { ServerConfig } from '../config/server-config';
import type { RateRule, Store } from '../store/store';

export type RateKind = 'create' | 'http' | 'smtp-message' | 'smtp-recipient';

/** Hits allowed per client per minute, by kind; 0 = no limit. */
export type RateLimits = Record<RateKind, number>;

/** Clients remembered at most, blocked or holding hits (each entry is small; past it the oldest go). */
const MAX_KEYS = 50_000;
const WINDOW_MS = 60_000;
const MAX_BLOCK = 500;

/** Hits taken from the store for a client and not used yet. */
interface Held {
  left: number;
  /** The block's hits count from `takenAt` to here (the window): unused ones are not used after it. */
  until: number;
  size: number;
  takenAt: number;
}

export class ClientLimits {
  private readonly blocked = new Map<string, number>();
  private readonly held = new Map<string, Held>();
  /** A block being taken, per key: other hits of that key wait for it rather than take their own. */
  private readonly taking = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Pick<Store, 'hitRateLimit'>,
    private rates: RateLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The limits in force. */
  limits(): RateLimits {
    return { ...this.rates };
  }

  /** Replaces some limits (a reload); the counts so far stay. */
  update(rates: Partial<RateLimits>): void {
    this.rates = { ...this.rates, ...rates };
    this.blocked.clear();
    this.held.clear();
  }

  /**
   * Counts one `kind` hit of `client` (its address as the socket or the proxy gives it): 0 when allowed,
   * else the whole seconds until one is. Rejects when the store cannot count (the caller decides whether
   * that refuses or lets through).
   */
  async hit(kind: RateKind, client: string): Promise<number> {
    const limit = this.rates[kind];
    if (!(limit > 0)) return 0;
    const key = `${kind} ${rateLimitKey(client)}`;
    const now = this.clock();
    const until = this.blocked.get(key);
    if (until !== undefined) {
      if (until > now) return Math.max(1, Math.ceil((until - now) / 1000));
      this.blocked.delete(key);
    }
    const held = this.held.get(key);
    if (held && held.left > 0 && now < held.until) {
      held.left--;
      return 0;
    }
    const pending = this.taking.get(key);
    if (pending) {
      await pending.catch(() => undefined);
      return this.hit(kind, client);
    }
    const taken = this.take(key, limit, now, held);
    this.taking.set(key, taken);
    try {
      return await taken;
    } finally {
      this.taking.delete(key);
    }
  }

  /** Takes the next block of hits for `key` from the store (one when a whole block does not fit). */
  private async take(key: string, limit: number, now: number, last: Held | undefined): Promise<number> {
    const rule: RateRule = { limit, windowMs: WINDOW_MS };
    // A twentieth of the limit, and never so many that one statement inserts more than MAX_BLOCK rows.
    const most = Math.max(1, Math.min(MAX_BLOCK, Math.floor(limit / 20)));
    const size = last && now - last.takenAt < 1000 ? Math.min(most, last.size * 2) : 1;
    let got = size;
    let wait = await this.store.hitRateLimit(key, now, rule, size);
    if (wait > 0 && size > 1) {
      got = 1;
      wait = await this.store.hitRateLimit(key, now, rule, 1);
    }
    if (wait > 0) {
      this.held.delete(key);
      if (this.blocked.size >= MAX_KEYS) this.blocked.delete(this.blocked.keys().next().value!);
      this.blocked.set(key, now + wait * 1000);
      return wait;
    }
    if (!this.held.has(key) && this.held.size >= MAX_KEYS) this.held.delete(this.held.keys().next().value!);
    this.held.set(key, { left: got - 1, until: now + WINDOW_MS, size: got, takenAt: now });
    return 0;
  }
}

/** The rates a configuration sets. */
export function ratesOf(
  config: Pick<
    ServerConfig,
    'createPerMinute' | 'httpRequestsPerMinute' | 'smtpMessagesPerMinute' | 'smtpRecipientsPerMinute'
  >,
): RateLimits {
  return {
    create: config.createPerMinute,
    http: config.httpRequestsPerMinute,
    'smtp-message': config.smtpMessagesPerMinute,
    'smtp-recipient': config.smtpRecipientsPerMinute,
  };
}
