/** The one reading of a client's IP address (src/server/limits/ip-address.ts), for the limits and the blocks alike. */
import { describe, expect, it } from 'vitest';
import { clientIp, plainIp } from '../../../src/server/limits/ip-address';
import { rateLimitKey } from '../../../src/server/limits/rate-limit';
import { ipRange } from '../../../src/server/mail/match';

describe('clientIp and plainIp', () => {
  it('reads an IPv4-mapped IPv6 address, in every spelling, as its IPv4 address', () => {
    for (const mapped of [
      '::ffff:192.0.2.1',
      '::FFFF:192.0.2.1',
      '::ffff:c000:201',
      '0:0:0:0:0:ffff:192.0.2.1',
      '::ffff:192.0.2.1%eth0',
    ]) {
      expect(plainIp(mapped)).toBe('192.0.2.1');
      expect(clientIp(mapped)).toEqual({ family: 'ipv4', address: '192.0.2.1' });
    }
  });

  it('leaves other addresses, and what is no address, as they are', () => {
    expect(plainIp('192.0.2.1')).toBe('192.0.2.1');
    expect(plainIp('2001:db8::1')).toBe('2001:db8::1');
    expect(plainIp('::1')).toBe('::1');
    expect(plainIp('unknown')).toBe('unknown');
    expect(clientIp('unknown')).toBeUndefined();
    expect(clientIp('::ffff:192.0.2.1/120')).toBeUndefined();
    expect(clientIp('fe80::1%eth0')).toEqual({
      family: 'ipv6',
      address: 'fe80::1',
      groups: [0xfe80, 0, 0, 0, 0, 0, 0, 1],
    });
  });

  it('gives the rate limits and the blocks the same IPv4 for a mapped address', () => {
    const spelled = '::ffff:c000:201';
    expect(rateLimitKey(spelled)).toBe('192.0.2.1');
    expect(ipRange('192.0.2.0/24')?.(spelled)).toBe(true);
    expect(ipRange('::ffff:192.0.2.1')?.('192.0.2.1')).toBe(true);
    expect(ipRange('192.0.2.0/24')?.('192.0.3.1')).toBe(false);
  });
});
