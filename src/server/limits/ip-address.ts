/**
 * The one reading of a client's IP address, for the per-client limits (rate-limit.ts) and for the admin
 * API's blocks and searches (mail/match.ts): node:net tells an address from anything else (a unix
 * socket, "unknown"), an IPv6 zone is dropped, and an IPv4 address as a dual-stack socket reports it
 * (IPv4-mapped IPv6, ::ffff:a.b.c.d, in any spelling) is that IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (zone dropped, embedded dotted IPv4 folded in). */
export function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The dotted IPv4 address of two 16-bit groups. */
export const dottedIpv4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** An IP address as the limits and the blocks read it, or undefined when `address` is not one. */
export type ClientIp = { family: 'ipv4'; address: string } | { family: 'ipv6'; address: string; groups: number[] };

export function clientIp(address: string): ClientIp | undefined {
  if (isIPv4(address)) return { family: 'ipv4', address };
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((x) => x === 0) && groups[5] === 0xffff) {
    return { family: 'ipv4', address: dottedIpv4(groups[6]!, groups[7]!) };
  }
  return { family: 'ipv6', address: bare, groups };
}

/** The address, an IPv4-mapped IPv6 one as its IPv4 address; anything else as it is. */
export function plainIp(address: string): string {
  const ip = clientIp(address);
  return ip?.family === 'ipv4' ? ip.address : address;
}
