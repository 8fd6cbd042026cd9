/**
 * Who counts as one client for create-session's rate limit: an IPv4 address; an IPv4-mapped IPv6
 * address as its IPv4; any IPv6 address by its /64, since one subscriber can rotate through a whole /64.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitKey, SlidingWindowLimiter } from '../../../src/server/limits/rate-limit';
import { buildServerConfig } from '../../../src/server/config/serve-config';
import { ServiceError } from '../../../src/server/service/service-types';
import { serviceMaker } from '../service-fixture';

const svc = serviceMaker();

describe('rateLimitKey', () => {
  it('keys IPv4 by the address, and IPv4-mapped IPv6 (both spellings) as that IPv4', () => {
    expect(rateLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(rateLimitKey('0:0:0:0:0:ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('keys IPv6 by its /64, whatever the spelling of the address', () => {
    const key = '2001:db8:aa:bb::/64';
    for (const a of [
      '2001:db8:aa:bb::1',
      '2001:0db8:00aa:00bb:0000:0000:0000:0002',
      '2001:DB8:AA:BB:1234:5678:9abc:def0',
      '2001:db8:aa:bb::9%eth0',
    ]) {
      expect(rateLimitKey(a), a).toBe(key);
    }
    expect(rateLimitKey('2001:db8:aa:bc::1')).toBe('2001:db8:aa:bc::/64');
    expect(rateLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitKey('fe80::1')).toBe('fe80:0:0:0::/64');
    // NAT64 (64:ff9b::/96) is an IPv6 client like any other.
    expect(rateLimitKey('64:ff9b::198.51.100.1')).toBe('64:ff9b:0:0::/64');
  });

  it("keys a 6to4 or Teredo address as the IPv4 host's it is, whatever /64 it picks", () => {
    // 2002:c000:0204::/48 is 192.0.2.4's: 65,536 /64s, one host.
    for (const a of ['2002:c000:204::1', '2002:c000:204:1::1', '2002:c000:204:ffff:1:2:3:4'])
      expect(rateLimitKey(a), a).toBe('192.0.2.4');
    // Teredo: server 65.54.227.120, flags and port the client chooses, client 192.0.2.45 inverted.
    for (const a of ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:0:1234:3fff:fdd2'])
      expect(rateLimitKey(a), a).toBe('192.0.2.45');
    // 2001:db8::/32 (documentation) is no Teredo: a /64 as any other.
    expect(rateLimitKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
  });

  it('leaves what is not an IP address as it is', () => {
    expect(rateLimitKey('unknown')).toBe('unknown');
    expect(rateLimitKey('')).toBe('');
  });
});

describe('create-session rate limit by client', () => {
  it('--create-per-minute 0 is taken and turns the limit off, as the other per-client rates', async () => {
    const config = buildServerConfig({ 'create-per-minute': '0' }, {});
    expect(config.createPerMinute).toBe(0);
    const f = await svc({ createPerMinute: config.createPerMinute });
    for (let i = 0; i < 40; i++) await f.service.createSession({ clientAddress: '198.51.100.77' });
  });

  it('counts every address of one IPv6 /64 together, another /64 apart, and a mapped IPv4 with its IPv4', async () => {
    const f = await svc({ createPerMinute: 2 });
    const create = (clientAddress: string) => f.service.createSession({ clientAddress });
    await create('2001:db8:1:2::a');
    await create('2001:db8:1:2:ffff:ffff:ffff:b');
    await expect(create('2001:db8:1:2::c')).rejects.toSatisfy(
      (e) => e instanceof ServiceError && e.code === 'rate_limited',
    );
    await create('2001:db8:1:3::a'); // the next /64 is someone else

    await create('198.51.100.9');
    await create('::ffff:198.51.100.9');
    await expect(create('198.51.100.9')).rejects.toSatisfy(
      (e) => e instanceof ServiceError && e.code === 'rate_limited',
    );
    await create('198.51.100.10');
  });
});

describe('the per-client counts of a data dir (SlidingWindowLimiter)', () => {
  // 100,000 clients in one minute: an IPv6 /48 is 65,536 /64s. Each hit used to sweep the whole map once
  // it held 10,000 keys (1.5 ms a hit at 60,000): this took minutes, past the test's time limit. Now each
  // hit drops only the stale keys it finds at the front of a map kept in the order of last hits.
  it('keeps up with 100,000 clients in a window, and forgets each one a window after its last hit', () => {
    const limiter = new SlidingWindowLimiter(2, 60_000);
    const key = (i: number) => `http 2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64`;
    // Half of them at 1 s, half at 20 s.
    let refused = 0;
    for (let i = 0; i < 100_000; i++) if (limiter.hit(key(i), i < 50_000 ? 1_000 : 20_000) !== 0) refused++;
    expect(refused).toBe(0);
    expect(limiter.size).toBe(100_000);
    expect(limiter.hit(key(5), 30_000)).toBe(0);
    expect(limiter.hit(key(5), 30_001)).toBeGreaterThan(0);
    // A minute after the first half: those are forgotten, but key 5 (hit again at 30 s) and the second half.
    expect(limiter.hit('http newcomer', 61_001)).toBe(0);
    expect(limiter.size).toBe(50_000 + 1 + 1);
    expect(limiter.hit(key(60_000), 61_001)).toBe(0);
    expect(limiter.hit(key(60_000), 61_002)).toBeGreaterThan(0);
  });

  it('remembers at most 100,000 clients: past that the one hit longest ago goes first', () => {
    const limiter = new SlidingWindowLimiter(1, 60_000);
    for (let i = 0; i <= 100_000; i++) limiter.hit(`c${i}`, 1_000);
    expect(limiter.size).toBe(100_000);
    // c0 was dropped (counted from zero again), c1 is still counted.
    expect(limiter.hit('c0', 1_001)).toBe(0);
    expect(limiter.hit('c2', 1_001)).toBeGreaterThan(0);
  });
});
