/**
 * The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2) that a load balancer sends
 * before the SMTP conversation: who the client really is. A pure parser of the bytes received so far:
 * it says "more" until a whole header is there, and never reads past what a header may hold (107 bytes
 * for v1; 16 + MAX_V2_BODY for v2), so a peer cannot make it keep anything unbounded.
 */
import { isIP } from 'node:net';
import { plainIp } from '../limits/ip-address';

/** The longest v1 header, CRLF included (the spec's figure). */
export const MAX_V1_BYTES = 107;
/** The v2 body we accept: the addresses (216 bytes at most, for unix sockets) and some TLVs. */
export const MAX_V2_BODY = 1024;

const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_START = Buffer.from('PROXY ', 'latin1');

export type ProxyHeader =
  | { kind: 'more' }
  | { kind: 'bad'; reason: string }
  /** `client` undefined: a LOCAL or UNKNOWN header (the proxy's own health check): the peer is itself. */
  | { kind: 'ok'; length: number; client?: { address: string; port: number } };

/** Whether `bytes` so far could still be the start of `prefix`. */
const startsLike = (bytes: Buffer, prefix: Buffer) =>
  bytes.subarray(0, prefix.length).equals(prefix.subarray(0, Math.min(bytes.length, prefix.length)));

/** Whether the first bytes a peer sent open a PROXY header (v1's `PROXY ` or v2's whole signature). */
export function opensProxyHeader(first: Buffer): boolean {
  return startsWithAll(first, V2_SIGNATURE) || startsWithAll(first, V1_START);
}

const startsWithAll = (bytes: Buffer, prefix: Buffer) =>
  bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);

/** Reads a header at the start of `bytes` (everything received so far). */
export function parseProxyHeader(bytes: Buffer): ProxyHeader {
  if (bytes.length === 0) return { kind: 'more' };
  if (startsLike(bytes, V2_SIGNATURE)) return bytes.length < 16 ? { kind: 'more' } : parseV2(bytes);
  if (startsLike(bytes, V1_START)) return parseV1(bytes);
  return { kind: 'bad', reason: 'no PROXY header' };
}

const PORT = /^(0|[1-9]\d{0,4})$/;

function parseV1(bytes: Buffer): ProxyHeader {
  const end = bytes.subarray(0, MAX_V1_BYTES).indexOf('\r\n');
  if (end < 0)
    return bytes.length >= MAX_V1_BYTES
      ? { kind: 'bad', reason: 'PROXY v1 line longer than 107 bytes' }
      : { kind: 'more' };
  const line = bytes.subarray(0, end).toString('latin1');
  const length = end + 2;
  const [, family, source, target, sourcePort, targetPort, ...rest] = line.split(' ');
  if (family === 'UNKNOWN') return { kind: 'ok', length };
  const version = family === 'TCP4' ? 4 : family === 'TCP6' ? 6 : 0;
  const ports = [sourcePort, targetPort].every((p) => p !== undefined && PORT.test(p) && Number(p) <= 65535);
  if (version === 0 || rest.length > 0 || !ports || isIP(source ?? '') !== version || isIP(target ?? '') !== version) {
    return { kind: 'bad', reason: 'malformed PROXY v1 line' };
  }
  return { kind: 'ok', length, client: { address: source!, port: Number(sourcePort) } };
}

function parseV2(bytes: Buffer): ProxyHeader {
  const versionCommand = bytes[12]!;
  const familyProtocol = bytes[13]!;
  const bodyLength = bytes.readUInt16BE(14);
  if (versionCommand >> 4 !== 2 || (versionCommand & 0xf) > 1)
    return { kind: 'bad', reason: 'PROXY v2 header of an unknown version or command' };
  if (bodyLength > MAX_V2_BODY) return { kind: 'bad', reason: `PROXY v2 header longer than ${16 + MAX_V2_BODY} bytes` };
  const length = 16 + bodyLength;
  if (bytes.length < length) return { kind: 'more' };
  // LOCAL (the proxy speaking for itself), or a family other than TCP over IPv4/IPv6: the peer is the proxy.
  if ((versionCommand & 0xf) === 0) return { kind: 'ok', length };
  const family = familyProtocol >> 4;
  const stream = (familyProtocol & 0xf) === 1;
  if (family === 1 && stream) {
    if (bodyLength < 12) return { kind: 'bad', reason: 'PROXY v2 header too short for IPv4 addresses' };
    const address = [...bytes.subarray(16, 20)].join('.');
    return { kind: 'ok', length, client: { address, port: bytes.readUInt16BE(24) } };
  }
  if (family === 2 && stream) {
    if (bodyLength < 36) return { kind: 'bad', reason: 'PROXY v2 header too short for IPv6 addresses' };
    return { kind: 'ok', length, client: { address: ipv6At(bytes, 16), port: bytes.readUInt16BE(48) } };
  }
  return { kind: 'ok', length };
}

/** The 16 bytes at `at` as an address in normal form (limits/ip-address.ts): ::ffff:a.b.c.d is that IPv4 client. */
function ipv6At(bytes: Buffer, at: number): string {
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(bytes.readUInt16BE(at + i * 2).toString(16));
  return plainIp(groups.join(':'));
}
