/** A sliding-window rate limit per key (client address), on an injected clock so tests never sleep. */
import { clientIp, dottedIpv4 } from './ip-address';

/**
 * Clients remembered at most. Entries leave once their last hit is a window old; this bounds what is left
 * when more clients than that hit within one window (an IPv6 /48 holds 65,536 /64s): the one whose last
 * hit is oldest goes first, and is counted from zero if it comes back.
 */
const MAX_KEYS = 100_000;

/** Allows `limit` hits per key in any `windowMs`; a limit <= 0 means no limit. */
export class SlidingWindowLimiter {
  /**
   * The hits of each key in the window, oldest first. The map is kept in the order of each key's last
   * hit (a hit moves its key to the end), so the keys whose hits have all left the window are at its
   * front: each hit drops those it finds there and stops at the first live one. (A sweep of the whole
   * map on every hit once it held 10,000 keys cost 1.5 ms a hit at 60,000 clients in a minute.)
   */
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Keys remembered now. */
  get size(): number {
    return this.hits.size;
  }

  /**
   * Records `cost` attempts at `now` (ms), all or none. Returns 0 when allowed, else the whole seconds
   * until that many are (at least 1). Refused attempts are not recorded, so waiting the answer out always
   * works.
   */
  hit(key: string, now: number, cost = 1): number {
    if (this.limit <= 0) return 0;
    this.forget(now);
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length + cost > this.limit) {
      // Its last hit did not change: it keeps its place in the order.
      if (recent.length > 0) this.hits.set(key, recent);
      else this.hits.delete(key);
      // The hit that must leave the window before `cost` more fit (the oldest one, for a single hit).
      const freeing = recent[Math.min(recent.length - 1, Math.max(0, recent.length + cost - this.limit - 1))] ?? now;
      return Math.max(1, Math.ceil((freeing + this.windowMs - now) / 1000));
    }
    for (let i = 0; i < cost; i++) recent.push(now);
    this.hits.delete(key);
    this.hits.set(key, recent);
    if (this.hits.size > MAX_KEYS) this.hits.delete(this.hits.keys().next().value!);
    return 0;
  }

  /** Drops the keys at the front whose last hit has left the window. */
  private forget(now: number): void {
    for (const [key, times] of this.hits) {
      if (times[times.length - 1]! > now - this.windowMs) return;
      this.hits.delete(key);
    }
  }
}

/** SlidingWindowLimiters by rule, for a store that keeps its create-session counts in memory. */
export class LimitersByRule {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  /** SlidingWindowLimiter.hit under `rule` (at most `limit` hits per `windowMs`). */
  hit(key: string, now: number, rule: { limit: number; windowMs: number }, cost = 1): number {
    const name = `${rule.limit}/${rule.windowMs}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(rule.limit, rule.windowMs);
      this.limiters.set(name, limiter);
    }
    return limiter.hit(key, now, cost);
  }
}

/**
 * The key a client is rate-limited under. IPv4 by its address; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 clients) as that IPv4; other IPv6 by its /64:
 * one subscriber is routinely given a whole /64 and can pick a new address in it for every request.
 *
 * Two kinds of IPv6 address are an IPv4 host's, and count as that IPv4: 6to4 (2002:AABB:CCDD::/48 is the
 * host a.b.c.d, which holds all 65,536 /64s of it) and Teredo (2001:0::/32, the client's IPv4 in its last
 * 32 bits, inverted; the /64 holds a port and flags the client picks).
 */
export function rateLimitKey(address: string): string {
  const ip = clientIp(address);
  if (ip === undefined) return address; // not an IP (a unix socket, "unknown"): as it is
  if (ip.family === 'ipv4') return ip.address;
  const g = ip.groups;
  if (g[0] === 0x2002) return dottedIpv4(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return dottedIpv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
