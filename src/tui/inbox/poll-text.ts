/** The poll state as words for the header: last checked, checking, offline/retrying in N s, stopped. */
import type { PollStatus } from '../../core/poller';
import { clockTime } from '../format';

/** One line describing `poll` at time `now`. */
export function pollText(poll: PollStatus, now: number, intervalMs: number): string {
  const last = poll.lastSuccessAt !== null ? `last checked ${clockTime(poll.lastSuccessAt)}` : 'not checked yet';
  const inSeconds = poll.nextAt !== null ? Math.max(0, Math.ceil((poll.nextAt - now) / 1000)) : 0;
  switch (poll.phase) {
    case 'idle':
      return 'starting…';
    case 'checking':
      return poll.failures > 0 ? `retrying now… (${last})` : `checking… (${last})`;
    case 'waiting':
      return `${last} · every ${Math.round(intervalMs / 1000)} s`;
    case 'retrying':
      return `${poll.error ?? 'check failed'} · retrying in ${inSeconds} s (${last})`;
    case 'stopped':
      return poll.stopReason === 'left' ? 'stopped' : `${poll.stopReason ?? 'stopped'} · press n for a new address`;
  }
}
