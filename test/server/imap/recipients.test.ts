/**
 * recipients.ts finds addresses with a linear scan instead of a regular expression. It must find what
 * the expression found (kept here as the oracle, run only on short fields, where its cost is nothing),
 * in routing order, and look only at the first ROUTING_HEAD_MAX_BYTES, cut at a line end.
 */
import { describe, expect, it } from 'vitest';
import { recipientsOf, routingHead, ROUTING_HEAD_MAX_BYTES, senderOf } from '../../../src/server/imap/recipients';

// The expression recipients.ts used before (quadratic on a long run without an @).
const ORACLE = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?/g;
const oracle = (value: string) => [...new Set([...value.matchAll(ORACLE)].map((m) => m[0].toLowerCase()))];

/** A deterministic stream of pseudo-random numbers (the same fields every run). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('recipientsOf', () => {
  it('finds what the old expression found, on 50,000 random short fields', () => {
    const alphabet = 'ab.-@@ +<>",;:()Z9_\t=é';
    const next = lcg(25);
    for (let i = 0; i < 50_000; i++) {
      let value = '';
      for (let n = 1 + Math.floor(next() * 30); n > 0; n--) value += alphabet[Math.floor(next() * alphabet.length)];
      expect(recipientsOf(`To: ${value}\r\n`), JSON.stringify(value)).toEqual(oracle(value));
    }
  });

  it('puts Delivered-To and X-Original-To first, unfolds, ignores other fields, and gives the From', () => {
    const head = [
      'Cc: first@example.org,\r\n  Routes <ROUTES+CC@ext.test>',
      'To: "Someone" <c+1@ext.test>, other@example.org',
      'Subject: not@an.address',
      'X-Original-To: orig@ext.test',
      'Delivered-To: dlv@ext.test',
      'From: "Name, with comma" <Sender@Example.ORG>',
      '',
    ].join('\r\n');
    expect(recipientsOf(head)).toEqual([
      'dlv@ext.test',
      'orig@ext.test',
      'c+1@ext.test',
      'other@example.org',
      'first@example.org',
      'routes+cc@ext.test',
    ]);
    expect(senderOf(head)).toBe('sender@example.org');
    expect(senderOf('To: a@b.c\r\n')).toBeUndefined();
  });

  it('looks at ROUTING_HEAD_MAX_BYTES, cut after the last whole line', () => {
    const line = (address: string, bytes: number) =>
      `To: ${address}${' '.repeat(bytes - `To: ${address}\r\n`.length)}\r\n`;
    const first = line('in@ext.test', ROUTING_HEAD_MAX_BYTES - 40);
    const fits = line('fits@ext.test', 40);
    expect(routingHead(Buffer.from(first + fits))).toHaveLength(ROUTING_HEAD_MAX_BYTES);
    expect(recipientsOf(Buffer.from(first + fits + line('past@ext.test', 40)))).toEqual([
      'in@ext.test',
      'fits@ext.test',
    ]);
    // One byte more and the whole second line goes: not the front half of its address.
    expect(recipientsOf(Buffer.from(first + line('fits@ext.test.evil', 41)))).toEqual(['in@ext.test']);
    expect(recipientsOf(`To: ${'x'.repeat(ROUTING_HEAD_MAX_BYTES * 4)}@ext.test\r\n`)).toEqual([]);
  });
});
