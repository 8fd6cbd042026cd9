/**
 * The live inbox of one session: a poller (one check in flight, backoff, Retry-After, stop on expiry)
 * feeding the inbox reducer. The only place the inbox does I/O; the screens render its state.
 */
import { useEffect, useReducer, useRef, useState } from 'react';
import { refusedBeforeExpiry } from '../../client/api-error';
import type { TempMailApi } from '../../client/client-types';
import { createPoller, IDLE_POLL_STATUS, type Poller, type PollStatus } from '../../client/poller';
import { NO_ZONE_VOTES, voteZone, zoneErrorMs } from '../../platform/time';
import type { Session } from '../../model/mail-types';
import { pollVerdict } from '../wording/error-text';
import { inboxReducer, initialInboxState, type InboxAction, type InboxState } from './inbox-state';

export interface UseInboxOptions {
  api: TempMailApi;
  session: Session;
  intervalMs: number;
  clock: () => number;
  /**
   * The service's word on the token: true at the first successful check, false when it stops polling
   * with "unknown token" before the address's expiry (the saved list marks such an address).
   */
  onTokenAnswer?: (known: boolean) => void;
  /** The ids opened before (the address's saved read state): not unread when listed. */
  read?: ReadonlySet<number>;
}

export interface InboxHandle {
  state: InboxState;
  dispatch: (action: InboxAction) => void;
  poll: PollStatus;
  /** Checks now; false when a check is already running, a Retry-After wait runs, or polling stopped. */
  refresh(): boolean;
  /**
   * How far the service's times read off (ms; 0 when they fit): learned from mail arriving while we
   * watch, when the service writes another zone than assumed. Listed times are corrected by the
   * reducer; the expiry countdown subtracts it.
   */
  zoneErrorMs: number;
}

// Arrivals teach the zone only when the two listings around them were close: the receive time must be
// pinned to well under a quarter hour for the rounding in zoneErrorMs to be right.
const LEARN_WINDOW_MS = 5 * 60_000;

/** Polls the session's inbox for as long as the component is mounted. */
export function useInbox({ api, session, intervalMs, clock, onTokenAnswer, read }: UseInboxOptions): InboxHandle {
  const [state, dispatch] = useReducer(inboxReducer, undefined, () => initialInboxState(10, read));
  const [poll, setPoll] = useState<PollStatus>(IDLE_POLL_STATUS);
  const pollerRef = useRef<Poller | null>(null);
  // A ref, so a new callback each render does not restart the poller.
  const answerRef = useRef(onTokenAnswer);
  answerRef.current = onTokenAnswer;
  const expiresAtMs = session.expiresAt.getTime();

  useEffect(() => {
    let cancelled = false;
    let known: Set<number> | null = null;
    let listedAt = 0;
    let votes = NO_ZONE_VOTES;
    let answered = false;
    const poller = createPoller({
      intervalMs,
      now: clock,
      task: () => api.checkMail(session.token),
      onResult: (messages) => {
        if (cancelled) return;
        const at = clock();
        if (known && at - listedAt <= LEARN_WINDOW_MS) {
          for (const m of messages) {
            if (!known.has(m.id) && m.receivedAt) votes = voteZone(votes, zoneErrorMs(m.receivedAt, listedAt, at));
          }
        }
        known = new Set(messages.map((m) => m.id));
        listedAt = at;
        dispatch({ type: 'listed', messages, zoneErrorMs: votes.errorMs });
        if (!answered) {
          answered = true;
          answerRef.current?.(true);
        }
      },
      onStatus: (status) => {
        if (!cancelled) setPoll(status);
      },
      classify: (error) => {
        const verdict = pollVerdict(error);
        if (!cancelled && verdict.stop && refusedBeforeExpiry(error, expiresAtMs, clock())) {
          answerRef.current?.(false);
        }
        return verdict;
      },
    });
    pollerRef.current = poller;
    poller.start();
    return () => {
      cancelled = true;
      poller.stop('left');
      pollerRef.current = null;
    };
  }, [api, session.token, expiresAtMs, intervalMs, clock]);

  return { state, dispatch, poll, refresh: () => pollerRef.current?.refresh() ?? false, zoneErrorMs: state.zoneErrorMs };
}
