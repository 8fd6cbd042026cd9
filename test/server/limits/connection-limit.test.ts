/**
 * The connection limit's log of refusals (src/server/limits/connection-limit.ts), on its own clock: a
 * refused client is named once a minute with the count since, and the record of who was named stays
 * bounded and in time order however many addresses a flood comes from.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionLimit } from '../../../src/server/limits/connection-limit';

const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function limitAt(start = 0) {
  const clock = { now: start };
  return { limit: new ConnectionLimit({ total: 1, perClient: 1 }, () => clock.now), clock };
}

describe('ConnectionLimit.shouldLog', () => {
  it('names a refused client at once, then once a minute with the refusals left unsaid', () => {
    const { limit, clock } = limitAt();
    expect(limit.shouldLog('192.0.2.7')).toBe(0);
    clock.now += 1_000;
    expect(limit.shouldLog('192.0.2.7')).toBeUndefined();
    clock.now += 58_000;
    expect(limit.shouldLog('192.0.2.7')).toBeUndefined();
    clock.now += 1_000;
    expect(limit.shouldLog('192.0.2.7')).toBe(2);
    // Another client is its own count.
    expect(limit.shouldLog('192.0.2.8')).toBe(0);
  });

  it('keeps at most 10,000 clients, dropping the one named longest ago (a client named again is not)', () => {
    const { limit, clock } = limitAt();
    expect(limit.shouldLog(ip(0))).toBe(0);
    clock.now = 30_000;
    expect(limit.shouldLog(ip(1))).toBe(0);
    // ip(0) is named again a minute after its first line: now ip(1)'s line is the older.
    clock.now = 60_000;
    expect(limit.shouldLog(ip(0))).toBe(0);
    clock.now = 60_001;
    for (let i = 2; i < 10_000; i++) expect(limit.shouldLog(ip(i))).toBe(0);
    // Full: the next new client drops ip(1), not ip(0).
    expect(limit.shouldLog(ip(10_000))).toBe(0);
    expect(limit.shouldLog(ip(0))).toBeUndefined();
    expect(limit.shouldLog(ip(1))).toBe(0);
    // A flood from 20,000 more addresses in the same minute: the newest 10,000 are remembered.
    for (let i = 10_001; i < 30_001; i++) limit.shouldLog(ip(i));
    expect(limit.shouldLog(ip(30_000))).toBeUndefined();
    expect(limit.shouldLog(ip(20_001))).toBeUndefined();
    expect(limit.shouldLog(ip(20_000))).toBe(0);
  });

  it('keeps the count of a client that goes quiet, for its next line however late', () => {
    const { limit, clock } = limitAt();
    for (let i = 0; i < 100; i++) limit.shouldLog(ip(i));
    for (let i = 0; i < 100; i++) limit.shouldLog(ip(i));
    clock.now = 600_000;
    expect(limit.shouldLog(ip(1_000))).toBe(0);
    expect(limit.shouldLog(ip(5))).toBe(1);
  });
});
