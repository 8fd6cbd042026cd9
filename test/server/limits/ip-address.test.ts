/** The one reading of a client's IP address (src/server/limits/ip-address.ts), for the limits and the blocks alike. */
import { describe, expect, it } from 'vitest';
import { parseBlock } from '../../../src/server/admin/blocks';
import { clientIp, ipPrefix, normalIp, plainIp } from '../../../src/server/limits/ip-address';
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

  it('writes every IPv6 address in one normal form: lower case, zeros compressed, no zone', () => {
    for (const spelled of ['2001:DB8::1', '2001:0db8:0:0:0:0:0:1', '2001:db8::0:1', '2001:db8::1%eth0']) {
      expect(normalIp(spelled)).toBe('2001:db8::1');
    }
    expect(normalIp('203.0.113.5')).toBe('203.0.113.5');
    expect(normalIp('2001:db8::1/64')).toBeUndefined();
    expect(normalIp('unknown')).toBeUndefined();
  });

  it('reads a range as the blocks and searches keep it: an IPv4-mapped range of 96 bits or more is IPv4', () => {
    expect(ipPrefix('2001:DB8:0::/32')).toEqual({ type: 'ipv6', address: '2001:db8::', bits: 32 });
    expect(ipPrefix('::ffff:192.0.2.0/120')).toEqual({ type: 'ipv4', address: '192.0.2.0', bits: 24 });
    expect(ipPrefix('::ffff:192.0.2.0/64')).toEqual({ type: 'ipv6', address: '::ffff:192.0.2.0', bits: 64 });
    for (const bad of ['192.0.2.0/33', '2001:db8::/129', '::ffff:192.0.2.0/130', '192.0.2.0/x', '1/2/3', 'x/8']) {
      expect(ipPrefix(bad), bad).toBeUndefined();
    }
    expect(ipRange('::ffff:192.0.2.0/120')?.('192.0.2.77')).toBe(true);
    expect(ipRange('::ffff:192.0.2.0/120')?.('192.0.3.77')).toBe(false);
    expect(ipRange('2001:DB8::/32')?.('2001:db8:0:0:1::1')).toBe(true);
  });

  it('keeps an IP block in the normal form, so one address is one block however it was spelled', () => {
    expect(parseBlock('ip', '2001:0DB8:0:0::1')).toEqual({ kind: 'ip', value: '2001:db8::1' });
    expect(parseBlock('ip', '::ffff:192.0.2.0/120')).toEqual({ kind: 'ip', value: '192.0.2.0/24' });
    expect(parseBlock('ip', '::FFFF:192.0.2.1')).toEqual({ kind: 'ip', value: '192.0.2.1' });
  });
});
