import { describe, expect, it } from 'vitest';
import {
  formatCountdown,
  formatWireTime,
  formatZoneError,
  NO_ZONE_VOTES,
  parseWireTime,
  parseZoneOffset,
  secondsLeft,
  voteZone,
  zoneErrorMs,
} from '../../src/platform/time';

describe('parseWireTime', () => {
  it('reads the wire format as UTC by default', () => {
    expect(parseWireTime('2026-11-21 10:00:00')?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
  });
  it('applies the configured service zone when the string has none', () => {
    expect(parseWireTime('2026-11-21 10:00:00', 120)?.toISOString()).toBe('2026-11-21T08:00:00.000Z');
    expect(parseWireTime('2026-11-21 10:00:00', -330)?.toISOString()).toBe('2026-11-21T15:30:00.000Z');
  });
  it('honours an explicit zone over the configured one (ISO forms)', () => {
    expect(parseWireTime('2026-11-21T10:00:00Z', 120)?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(parseWireTime('2026-11-21T10:00:00+02:00')?.toISOString()).toBe('2026-11-21T08:00:00.000Z');
    expect(parseWireTime('2026-11-21T10:00:00-0530')?.toISOString()).toBe('2026-11-21T15:30:00.000Z');
    expect(parseWireTime('2026-11-21 10:00:00.123')?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
  });
  it('tolerates surrounding whitespace', () => {
    expect(parseWireTime(' 2026-11-21 10:00:00 \n')?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
  });
  it('handles leap days and year ends', () => {
    expect(parseWireTime('2028-02-29 23:59:59')?.toISOString()).toBe('2028-02-29T23:59:59.000Z');
    expect(parseWireTime('2026-12-31 23:30:00', -60)?.toISOString()).toBe('2027-01-01T00:30:00.000Z');
  });
  it('rejects impossible dates and times instead of rolling them over', () => {
    for (const bad of [
      '2026-02-29 00:00:00',
      '2026-02-31 00:00:00',
      '2026-13-01 00:00:00',
      '2026-00-10 00:00:00',
      '2026-01-00 00:00:00',
      '2026-01-01 24:00:00',
      '2026-01-01 10:60:00',
      '2026-01-01 10:00:61',
      '2026-01-01T00:00:00+25:00',
      '2026-01-01T00:00:00+01:75',
    ]) {
      expect(parseWireTime(bad), bad).toBeNull();
    }
  });
  it('rejects what is not a wire time', () => {
    for (const bad of [
      undefined,
      null,
      0,
      1732183200,
      {},
      '',
      'soon',
      '2026-11-21',
      '21/11/2026 10:00:00',
      '2026-11-21 10:00',
    ]) {
      expect(parseWireTime(bad), String(bad)).toBeNull();
    }
    expect(parseWireTime('2026-11-21 10:00:00', Number.NaN)).toBeNull();
  });
});

describe('formatWireTime', () => {
  it('writes YYYY-MM-DD HH:MM:SS in UTC and round-trips', () => {
    const at = new Date('2026-03-04T05:06:07.890Z');
    expect(formatWireTime(at)).toBe('2026-03-04 05:06:07');
    expect(formatWireTime(at)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(parseWireTime(formatWireTime(at))?.toISOString()).toBe('2026-03-04T05:06:07.000Z');
  });
});

describe('parseZoneOffset', () => {
  it('reads UTC names and numeric offsets', () => {
    expect(parseZoneOffset('UTC')).toBe(0);
    expect(parseZoneOffset('z')).toBe(0);
    expect(parseZoneOffset('GMT')).toBe(0);
    expect(parseZoneOffset('+02:00')).toBe(120);
    expect(parseZoneOffset('-0530')).toBe(-330);
    expect(parseZoneOffset('+2')).toBe(120);
    expect(parseZoneOffset('UTC+01:30')).toBe(90);
  });
  it('resolves IANA names at the given instant (daylight saving)', () => {
    expect(parseZoneOffset('Europe/Berlin', new Date('2026-01-15T12:00:00Z'))).toBe(60);
    expect(parseZoneOffset('Europe/Berlin', new Date('2026-07-15T12:00:00Z'))).toBe(120);
    expect(parseZoneOffset('Asia/Kolkata', new Date('2026-07-15T12:00:00Z'))).toBe(330);
    expect(parseZoneOffset('America/New_York', new Date('2026-01-15T12:00:00Z'))).toBe(-300);
  });
  it('returns null for what is not a zone', () => {
    expect(parseZoneOffset('Mars/Olympus')).toBeNull();
    expect(parseZoneOffset('+15:00')).toBeNull();
    expect(parseZoneOffset('')).toBeNull();
  });
});

describe('secondsLeft and formatCountdown', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  it('counts down whole seconds', () => {
    expect(secondsLeft(new Date('2026-11-21T10:59:07Z'), now)).toBe(3547);
    expect(secondsLeft(new Date('2026-11-21T10:00:00.999Z'), now)).toBe(0);
  });
  it('never goes negative, whatever the zone mistake', () => {
    expect(secondsLeft(new Date('2026-11-21T08:00:00Z'), now)).toBe(0);
  });
  it('never shows an absurd value', () => {
    expect(secondsLeft(new Date('2036-11-21T10:00:00Z'), now)).toBe(7 * 24 * 3600);
    expect(secondsLeft(new Date('2026-11-21T19:00:00Z'), now, 3600)).toBe(3600);
    expect(secondsLeft(new Date(Number.NaN), now)).toBe(0);
  });
  it('formats minutes and hours', () => {
    expect(formatCountdown(3547)).toBe('59:07');
    expect(formatCountdown(3723)).toBe('1:02:03');
    expect(formatCountdown(0)).toBe('0:00');
    expect(formatCountdown(-5)).toBe('0:00');
    expect(formatCountdown(59.9)).toBe('0:59');
    expect(formatCountdown(Number.NaN)).toBe('0:00');
    expect(formatCountdown(Number.POSITIVE_INFINITY)).toBe('0:00');
  });
});

describe('learning a misread zone from arriving mail', () => {
  const H = 3_600_000;
  const t0 = Date.UTC(2026, 10, 23, 12, 0, 0);
  const at = (ms: number) => new Date(t0 + ms);

  it('a receive time inside the window between two listings (give or take 10 min) says nothing', () => {
    expect(zoneErrorMs(at(2_000), t0, t0 + 5_000)).toBe(0);
    expect(zoneErrorMs(at(9 * 60_000), t0, t0 + 5_000)).toBe(0);
    expect(zoneErrorMs(at(-9 * 60_000), t0, t0 + 5_000)).toBe(0);
  });

  it('far outside, it is the zone error in whole quarter hours, either way', () => {
    expect(zoneErrorMs(at(5 * H + 3_000), t0, t0 + 5_000)).toBe(5 * H);
    expect(zoneErrorMs(at(-3.5 * H + 1_000), t0, t0 + 5_000)).toBe(-3.5 * H);
    // The receive time anywhere in a 5-minute window still rounds to the same error.
    expect(zoneErrorMs(at(5 * H), t0, t0 + 5 * 60_000)).toBe(5 * H);
    expect(zoneErrorMs(at(5 * H + 5 * 60_000), t0, t0 + 5 * 60_000)).toBe(5 * H);
    expect(zoneErrorMs(at(5.75 * H), t0, t0 + 5_000)).toBe(5.75 * H);
  });

  it('takes an error only when two arrivals in a row agree on it', () => {
    let v = voteZone(NO_ZONE_VOTES, 5 * H);
    expect(v.errorMs).toBe(0);
    v = voteZone(v, 5 * H);
    expect(v.errorMs).toBe(5 * H);
    v = voteZone(v, 0); // one mail that fits does not undo it
    expect(v.errorMs).toBe(5 * H);
    v = voteZone(voteZone(v, -2 * H), 5 * H); // nor do two that disagree
    expect(v.errorMs).toBe(5 * H);
    v = voteZone(v, 0);
    v = voteZone(v, 0);
    expect(v.errorMs).toBe(0);
  });

  it('says the error in hours and minutes', () => {
    expect(formatZoneError(5 * H)).toBe('+5 h');
    expect(formatZoneError(-3.5 * H)).toBe('-3 h 30 min');
    expect(formatZoneError(0.75 * H)).toBe('+45 min');
  });
});
