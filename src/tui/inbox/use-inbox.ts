/**
 * The live inbox of one session: a poller (one check in flight, backoff, Retry-After, stop on expiry)
 * feeding the inbox reducer. The only place the inbox does I/O; the screens render its state.
 */
import { useEffect, useReducer, useRef, useState } from 'react';
import type { TempMailApi } from '../../api/types';
import { createPoller, IDLE_POLL_STATUS, type Poller, type PollStatus } from '../../core/poller';
import type { Session } from '../../core/types';
import { pollVerdict } from '../errors';
import { inboxReducer, initialInboxState, type InboxAction, type InboxState } from './inbox-state';

export interface UseInboxOptions {
  api: TempMailApi;
  session: Session;
  intervalMs: number;
  clock: () => number;
}

export interface InboxHandle {
  state: InboxState;
  dispatch: (action: InboxAction) => void;
  poll: PollStatus;
  /** Checks now; false when a check is already running, a Retry-After wait runs, or polling stopped. */
  refresh(): boolean;
}

/** Polls the session's inbox for as long as the component is mounted. */
export function useInbox({ api, session, intervalMs, clock }: UseInboxOptions): InboxHandle {
  const [state, dispatch] = useReducer(inboxReducer, undefined, () => initialInboxState());
  const [poll, setPoll] = useState<PollStatus>(IDLE_POLL_STATUS);
  const pollerRef = useRef<Poller | null>(null);

  useEffect(() => {
    let cancelled = false;
    const poller = createPoller({
      intervalMs,
      now: clock,
      task: () => api.checkMail(session.token),
      onResult: (messages) => {
        if (!cancelled) dispatch({ type: 'listed', messages });
      },
      onStatus: (status) => {
        if (!cancelled) setPoll(status);
      },
      classify: pollVerdict,
    });
    pollerRef.current = poller;
    poller.start();
    return () => {
      cancelled = true;
      poller.stop('left');
      pollerRef.current = null;
    };
  }, [api, session.token, intervalMs, clock]);

  return { state, dispatch, poll, refresh: () => pollerRef.current?.refresh() ?? false };
}
