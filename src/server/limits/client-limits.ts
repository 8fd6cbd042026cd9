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
 * The rules can change while running (`update`, for a reload of the configuration).
 */
import { rateLimitKey } from './rate-limit';
import type { ServerConfig } from '../server-config';
import type { RateRule, Store } from '../store/store';

export type RateKind = 'create' | 'http' | 'smtp-message' | 'smtp-recipient';

/** Hits allowed per client per minute, by kind; 0 = no limit. */
export type RateLimits = Record<RateKind, number>;

/** Blocked clients remembered at most (each entry is small; past it the oldest go). */
const MAX_BLOCKED = 50_000;

export class ClientLimits {
  private readonly blocked = new Map<string, number>();

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
    const rule: RateRule = { limit, windowMs: 60_000 };
    const wait = await this.store.hitRateLimit(key, now, rule);
    if (wait > 0) {
      if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
      this.blocked.set(key, now + wait * 1000);
    }
    return wait;
  }
}

/** The rates a configuration sets. */
export function ratesOf(config: Pick<ServerConfig, 'createPerMinute' | 'httpRequestsPerMinute' | 'smtpMessagesPerMinute' | 'smtpRecipientsPerMinute'>): RateLimits {
  return {
    create: config.createPerMinute,
    http: config.httpRequestsPerMinute,
    'smtp-message': config.smtpMessagesPerMinute,
    'smtp-recipient': config.smtpRecipientsPerMinute,
  };
}
