/** The poll state as words for the header: last checked, checking, offline/retrying in N s, stopped. */
import type { PollStatus } from '../../client/pacing/poller';
import { OFFLINE } from '../wording/error-text';
import { clockTime } from '../wording/display-format';

/** One line describing `poll` at time `now`. */
export function pollText(poll: PollStatus, now: number, intervalMs: number): string {
  const last = poll.lastSuccessAt !== null ? `last checked ${clockTime(poll.lastSuccessAt)}` : 'not checked yet';
  // Floored like the expiry countdown (secondsLeft): both change on the same tick, never read high.
  const inSeconds = poll.nextAt !== null ? Math.max(0, Math.floor((poll.nextAt - now) / 1000)) : 0;
  switch (poll.phase) {
    case 'idle':
      return 'starting…';
    case 'checking':
      return poll.failures > 0 ? `retrying now… (${last})` : `checking… (${last})`;
    case 'waiting':
      return `${last} · every ${Math.round(intervalMs / 1000)} s`;
    case 'retrying':
      return `${retryHead(poll, inSeconds)} (${last})`;
    case 'held':
      // The state and the key first (a status line is cut at its end); the whole reason is in the status.
      return `Stopped, r tries again: ${poll.error ?? 'the check failed'}`;
    case 'stopped':
      return poll.stopReason === 'left' ? 'stopped' : `${poll.stopReason ?? 'stopped'} · press n for a new address`;
  }
}

/**
 * The state and the countdown first, the reason after: "Offline, retrying in 8 s: <reason>". A status
 * line is cut at the terminal's edge, and a long reason first would cut the countdown off.
 */
function retryHead(poll: PollStatus, seconds: number): string {
  const error = poll.error ?? 'the check failed';
  const retrying = `retrying in ${seconds} s`;
  // "Rate limited by the service" is the state itself; it has no further reason.
  if (poll.rateLimited) return `${error}, ${retrying}`;
  if (error.startsWith(OFFLINE)) return `Offline, ${retrying}: ${error.slice(OFFLINE.length)}`;
  return `Error, ${retrying}: ${error}`;
}
