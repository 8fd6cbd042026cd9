/**
 * The one reading of an IP address, for the per-client limits (rate-limit.ts), the trusted proxies (HTTP
 * and the PROXY protocol) and the admin API's blocks and searches (mail/match.ts, admin/blocks.ts).
 * node:net's SocketAddress writes every address in one normal form (lower case, zeros compressed, the
 * zone dropped); an IPv4 address as a dual-stack socket reports it (IPv4-mapped IPv6, ::ffff:a.b.c.d, in
 * any spelling) is that IPv4 address. Anything else (a unix socket, "unknown") is no address.
 */
import { isIPv4, isIPv6, SocketAddress } from 'node:net';

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/;

/** The normal form of an IP address, or undefined when `address` is not one. */
export function normalIp(address: string): string | undefined {
  if (isIPv4(address)) return address;
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  let text: string;
  try {
    text = new SocketAddress({ address: bare, family: 'ipv6' }).address;
  } catch {
    return undefined; // isIPv6's pattern took what the system's parser refuses: no address, not a throw
  }
  return MAPPED.exec(text)?.[1] ?? text;
}

/** The address in its normal form; anything that is no IP address as it is. */
export function plainIp(address: string): string {
  return normalIp(address) ?? address;
}

/** The eight 16-bit groups of an IPv6 address in normal form (an embedded dotted IPv4 folded in). */
function ipv6Groups(text: string): number[] {
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
  const ip = normalIp(address);
  if (ip === undefined) return undefined;
  return isIPv4(ip) ? { family: 'ipv4', address: ip } : { family: 'ipv6', address: ip, groups: ipv6Groups(ip) };
}

/** An address or a CIDR range in normal form: an IPv4-mapped range (::ffff:a.b.c.d/n, n >= 96) is IPv4. */
export interface IpPrefix {
  type: 'ipv4' | 'ipv6';
  address: string;
  /** The prefix length; undefined for one address. */
  bits: number | undefined;
}

/** `value` ("192.0.2.1", "2001:db8::/32", ...) read as an IpPrefix, or undefined when it is neither. */
export function ipPrefix(value: string): IpPrefix | undefined {
  const [text = '', bitsText, ...rest] = value.trim().split('/');
  const address = normalIp(text);
  if (address === undefined || rest.length > 0) return undefined;
  const type = isIPv4(address) ? 'ipv4' : 'ipv6';
  if (bitsText === undefined) return { type, address, bits: undefined };
  const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
  // A mapped address is IPv4 when its prefix reaches into the IPv4 part (its first 96 bits are fixed).
  if (type === 'ipv4' && !isIPv4(text)) {
    if (bits >= 96 && bits <= 128) return { type, address, bits: bits - 96 };
    return bits >= 0 && bits < 96 ? { type: 'ipv6', address: `::ffff:${address}`, bits } : undefined;
  }
  return bits >= 0 && bits <= (type === 'ipv4' ? 32 : 128) ? { type, address, bits } : undefined;
}

/** An IpPrefix as it is written: the address, then /bits for a range. */
export const showPrefix = (p: IpPrefix) => (p.bits === undefined ? p.address : `${p.address}/${p.bits}`);
