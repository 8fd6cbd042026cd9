/** Times on the wire are `YYYY-MM-DD HH:MM:SS` with no zone; the reference service means UTC. */

const WIRE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a wire time. `offsetMinutes` is the service's zone when the string carries none
 * (0 = UTC, the default). Returns null for anything that is not a real time.
 */
export function parseWireTime(value: unknown, offsetMinutes = 0): Date | null {
  if (typeof value !== 'string') return null;
  const m = WIRE_TIME.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, zone] = m;
  let offset = offsetMinutes;
  if (zone === 'Z') offset = 0;
  else if (zone) {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const zh = Number(digits.slice(0, 2));
    const zm = Number(digits.slice(2));
    if (zh > 14 || zm > 59) return null;
    offset = sign * (zh * 60 + zm);
  }
  const parts = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const local = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  local.setUTCFullYear(parts[0], parts[1] - 1, parts[2]);
  local.setUTCHours(parts[3], parts[4], parts[5], 0);
  // Reject 2026-02-31, month 13, 10:60 and friends, which Date silently rolls over.
  const back = [
    local.getUTCFullYear(),
    local.getUTCMonth() + 1,
    local.getUTCDate(),
    local.getUTCHours(),
    local.getUTCMinutes(),
    local.getUTCSeconds(),
  ];
  if (Number.isNaN(local.getTime()) || back.some((v, i) => v !== parts[i])) return null;
  const ms = local.getTime() - offset * 60_000;
  return Number.isFinite(ms) ? new Date(ms) : null;
}

/** Formats an instant as a UTC wire time. */
export function formatWireTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Parses a zone setting: "UTC", "Z", "+02:00", "-0530", or an IANA name such as "Europe/Berlin"
 * (resolved at `at`). Returns the offset in minutes, or null when it is not a zone.
 */
export function parseZoneOffset(zone: string, at: Date = new Date()): number | null {
  const z = zone.trim();
  if (/^(utc|gmt|z)$/i.test(z)) return 0;
  const m = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(z);
  if (m) {
    const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
    return minutes > 14 * 60 ? null : (m[1] === '-' ? -1 : 1) * minutes;
  }
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: z,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(at);
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    return Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  } catch {
    return null;
  }
}

/**
 * Seconds left until `expiresAt`, clamped to [0, maxSeconds]: a service in an unexpected zone must never
 * make the countdown negative or absurd (a 60-minute session showing 9 hours).
 */
export function secondsLeft(expiresAt: Date, now: Date, maxSeconds = 7 * 24 * 3600): number {
  const left = Math.floor((expiresAt.getTime() - now.getTime()) / 1000);
  if (!Number.isFinite(left) || left < 0) return 0;
  return Math.min(left, maxSeconds);
}

/**
 * The time left to an expiry is shown to the second only below this (seconds): far from it, whole minutes
 * read as well, and a countdown in minutes changes the screen once a minute instead of every second
 * (the idle app's CPU is that frame: docs/performance.md, "Idle CPU").
 */
export const SECONDS_SHOWN_UNDER = 600;

/** "9:59" below SECONDS_SHOWN_UNDER, else whole minutes, floored: "59 min", "5 h 29 min". */
export function formatTimeLeft(seconds: number): string {
  const s = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  if (s < SECONDS_SHOWN_UNDER) return formatCountdown(s);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** "59:07", "1:02:03", "0:00". */
export function formatCountdown(seconds: number): string {
  // NaN or Infinity (a broken expiry) shows as 0:00, never "NaN:NaN".
  const s = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

const QUARTER_HOUR = 15 * 60_000;
// Clocks drift and mail takes a moment from SMTP to the listing: a smaller gap proves nothing.
const ZONE_SLACK_MS = 10 * 60_000;

/**
 * How far a wire time was misread when the service writes another zone than we assume, learned from
 * a message that arrived between two listings `seenAfter` and `seenBy` (clock ms): its true receive
 * time lies in that window, so a parsed time far outside it is off by the zone error, a whole number
 * of quarter hours (every zone is). 0 when the time fits the window.
 */
export function zoneErrorMs(receivedAt: Date, seenAfter: number, seenBy: number): number {
  const t = receivedAt.getTime();
  const off = t > seenBy + ZONE_SLACK_MS ? t - seenBy : t < seenAfter - ZONE_SLACK_MS ? t - seenAfter : 0;
  return Math.round(off / QUARTER_HOUR) * QUARTER_HOUR;
}

/** "+5 h", "-3 h 30 min": a zone error for a status line. */
export function formatZoneError(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${ms < 0 ? '-' : '+'}${h > 0 ? `${h} h` : ''}${h > 0 && m > 0 ? ' ' : ''}${m > 0 ? `${m} min` : ''}`;
}

/** What the arrivals so far say about the zone error: the latest reading and how many agree on it. */
export interface ZoneVotes {
  /** The zone error taken as true (ms); 0 until two arrivals agree on another. */
  errorMs: number;
  reading: number;
  votes: number;
}

export const NO_ZONE_VOTES: ZoneVotes = { errorMs: 0, reading: 0, votes: 0 };

/**
 * Counts one arrival's reading. Two in a row must agree before the error is taken: a service that
 * reports a sender's Date header as its receive time would otherwise let one badly dated mail move
 * every time on screen.
 */
export function voteZone(v: ZoneVotes, reading: number): ZoneVotes {
  const votes = reading === v.reading ? v.votes + 1 : 1;
  return { errorMs: votes >= 2 ? reading : v.errorMs, reading, votes };
}
