/**
 * The PROXY protocol header parser (HAProxy's proxy-protocol.txt, v1 and v2): a whole header gives the
 * client; a partial one asks for more; garbage and headers past the bounds are refused, never buffered on.
 */
import { describe, expect, it } from 'vitest';
import { MAX_V1_BYTES, MAX_V2_BODY, parseProxyHeader } from '../../../src/server/smtp/proxy-header';

const SIG = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

function v2(command: number, family: number, body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0x20 | command;
  head[1] = family;
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([SIG, head, body]);
}

describe('parseProxyHeader', () => {
  it('reads v1 TCP4 and TCP6 lines, and UNKNOWN as the proxy itself', () => {
    const line = Buffer.from('PROXY TCP4 192.0.2.7 198.51.100.1 40000 25\r\nEHLO x\r\n');
    expect(parseProxyHeader(line)).toEqual({ kind: 'ok', length: 44, client: { address: '192.0.2.7', port: 40000 } });
    expect(parseProxyHeader(Buffer.from('PROXY TCP6 2001:db8::7 2001:db8::1 1 25\r\n'))).toMatchObject({
      client: { address: '2001:db8::7', port: 1 },
    });
    expect(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).toEqual({ kind: 'ok', length: 15 });
  });

  it('asks for more until a header is whole, and refuses garbage and lines past 107 bytes', () => {
    expect(parseProxyHeader(Buffer.from('PROX'))).toEqual({ kind: 'more' });
    expect(parseProxyHeader(Buffer.from('PROXY TCP4 192.0.2.7'))).toEqual({ kind: 'more' });
    expect(parseProxyHeader(SIG.subarray(0, 5))).toEqual({ kind: 'more' });
    for (const bad of [
      'EHLO client.test\r\n',
      'PROXY TCP4 192.0.2.7 198.51.100.1 40000 25 extra\r\n',
      'PROXY TCP4 2001:db8::7 198.51.100.1 1 25\r\n',
      'PROXY TCP4 192.0.2.7 198.51.100.1 70000 25\r\n',
      'PROXY TCP4 host.example 198.51.100.1 1 25\r\n',
      `PROXY ${'x'.repeat(MAX_V1_BYTES)}`,
    ]) {
      expect(parseProxyHeader(Buffer.from(bad)).kind, bad).toBe('bad');
    }
  });

  it('reads v2 PROXY over IPv4 and IPv6 (IPv4-mapped as IPv4), LOCAL as the proxy itself, and refuses a body past the bound', () => {
    const ipv4 = Buffer.from([192, 0, 2, 9, 10, 0, 0, 1, 0x9c, 0x40, 0, 25]);
    const header = v2(1, 0x11, ipv4);
    expect(parseProxyHeader(Buffer.concat([header, Buffer.from('EHLO')]))).toEqual({
      kind: 'ok',
      length: 28,
      client: { address: '192.0.2.9', port: 40000 },
    });
    expect(parseProxyHeader(header.subarray(0, 20))).toEqual({ kind: 'more' });
    const ipv6 = Buffer.alloc(36);
    Buffer.from([0x20, 0x01, 0x0d, 0xb8]).copy(ipv6, 0);
    ipv6[15] = 7;
    ipv6.writeUInt16BE(5, 32);
    expect(parseProxyHeader(v2(1, 0x21, ipv6))).toMatchObject({ client: { address: '2001:db8::7', port: 5 } });
    const mapped = Buffer.alloc(36);
    mapped[10] = 0xff;
    mapped[11] = 0xff;
    Buffer.from([203, 0, 113, 4]).copy(mapped, 12);
    expect(parseProxyHeader(v2(1, 0x21, mapped))).toMatchObject({ client: { address: '203.0.113.4' } });
    expect(parseProxyHeader(v2(0, 0x00, Buffer.alloc(0)))).toEqual({ kind: 'ok', length: 16 });
    expect(parseProxyHeader(v2(1, 0x11, Buffer.alloc(4))).kind).toBe('bad');
    expect(parseProxyHeader(v2(2, 0x11, ipv4)).kind).toBe('bad');
    const long = v2(1, 0x11, Buffer.alloc(MAX_V2_BODY + 1));
    expect(parseProxyHeader(long.subarray(0, 16)).kind).toBe('bad');
  });
});
