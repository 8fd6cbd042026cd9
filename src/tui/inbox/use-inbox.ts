/**
 * The live inbox of one session: a poller (one check in flight, backoff, Retry-After, stop on expiry)
 * feeding the inbox reducer, and, where the provider pushes new mail (mail.tm, the in-process service),
 * its news asking the poller to check at once; while that push is live the poller checks only every
 * minute (PUSHED_POLL_MS), since news comes without it. The only place the inbox does I/O; the screens render its
 * state. A check that brings the same listing as the last one costs nothing: no action, no render. The
 * poller's status is a store of its own, read by the header (and by the session for whether it still
 * polls), so a check redraws the header's line alone, and only where what it says changed ("checking…"
 * shows once a check takes long).
 */
import { useEffect, useReducer, useRef, useState } from 'react';
import { refusedBeforeExpiry } from '../../client/api-error';
import type { MailProvider, PushState } from '../../client/client-types';
import { createPoller, IDLE_POLL_STATUS, type Poller, type PollStatus } from '../../client/pacing/poller';
import { NO_ZONE_VOTES, voteZone, zoneErrorMs } from '../../platform/time';
import { expiryMs, type MessageId, type Session } from '../../model/mail-types';
import { pollVerdict } from '../wording/error-text';
import { createValueStore, useStoreValue, type ValueStore } from '../widgets/value-store';
import type { MessageList } from '../../client/wire/listing';
import {
  inboxReducer,
  initialInboxState,
  sameCut,
  sameListing,
  type InboxAction,
  type InboxState,
} from './inbox-state';
import { pushedChecks } from './pushed-checks';

export interface UseInboxOptions {
  api: MailProvider;
  session: Session;
  intervalMs: number;
  clock: () => number;
  /**
   * The service's word on the token: true at the first successful check, false when it stops polling
   * with "unknown token" before the address's expiry (the saved list marks such an address).
   */
  onTokenAnswer?: (known: boolean) => void;
  /** The ids opened before (the address's saved read state): not unread when listed. */
  read?: ReadonlySet<MessageId>;
}

export interface InboxHandle {
  state: InboxState;
  dispatch: (action: InboxAction) => void;
  /** The poller's status as it changes (read it with useStoreValue; the header shows it). */
  poll: ValueStore<PollStatus>;
  /** Polling goes on (it has not stopped for good: expired, refused, left). */
  live: boolean;
  /** Checks now; false when a check is already running, a Retry-After wait runs, or polling stopped. */
  refresh(): boolean;
  /**
   * How far the service's times read off (ms; 0 when they fit): learned from mail arriving while we
   * watch, when the service writes another zone than assumed. Listed times are corrected by the
   * reducer; the expiry countdown subtracts it.
   */
  zoneErrorMs: number;
  /** The provider's new-mail push, where it has one: null where it has none. */
  push: PushState | null;
  /** Time between checks as the poller keeps it now: longer while the push is live. */
  intervalMs: number;
}

/**
 * Time between checks while the provider's push is live (the user's interval where that is longer). The
 * push brings news of mail at once, so a check every few seconds would find nothing it did not: each
 * cost a request and a frame of the idle app (docs/performance.md, "Idle CPU"). Still checked now and
 * then: a stream that went silent without a word is found only after three missed heartbeats (mail.tm's
 * hub sends none), and the checks are what notices an address the service dropped. When the push goes
 * down, the user's interval is back at once (a wait under way is cut to it).
 */
export const PUSHED_POLL_MS = 60_000;

/** The poller's interval for the push's state. */
export function pollIntervalFor(intervalMs: number, push: PushState | null): number {
  return push === 'live' ? Math.max(intervalMs, PUSHED_POLL_MS) : intervalMs;
}

// Arrivals teach the zone only when the two listings around them were close: the receive time must be
// pinned to well under a quarter hour for the rounding in zoneErrorMs to be right.
const LEARN_WINDOW_MS = 5 * 60_000;
// A check of the usual round shows as "checking…" only once it has taken this long (a slow or hanging
// service): one that answers at once would flash the line twice every interval, on every SSH link.
export const CHECKING_SHOWN_AFTER_MS = 500;

/** Polls the session's inbox for as long as the component is mounted. */
export function useInbox({ api, session, intervalMs, clock, onTokenAnswer, read }: UseInboxOptions): InboxHandle {
  const [state, dispatch] = useReducer(inboxReducer, undefined, () => initialInboxState(10, read));
  const [poll] = useState(() => createValueStore<PollStatus>(IDLE_POLL_STATUS));
  const live = useStoreValue(poll, isLive);
  const pollerRef = useRef<Poller | null>(null);
  // A ref, so a new callback each render does not restart the poller.
  const answerRef = useRef(onTokenAnswer);
  answerRef.current = onTokenAnswer;
  const expiresAtMs = expiryMs(session);
  const [push, setPush] = useState<PushState | null>(api.watchMail ? 'connecting' : null);

  useEffect(() => {
    let cancelled = false;
    let known: Set<string> | null = null;
    let listed: MessageList | null = null;
    let listedAt = 0;
    let votes = NO_ZONE_VOTES;
    let answered = false;
    let showChecking: ReturnType<typeof setTimeout> | undefined;
    const poller = createPoller({
      intervalMs,
      now: clock,
      task: () => api.listMessages(session),
      onResult: (messages) => {
        if (cancelled) return;
        const at = clock();
        if (known && at - listedAt <= LEARN_WINDOW_MS) {
          for (const m of messages) {
            if (!known.has(m.id) && m.receivedAt) votes = voteZone(votes, zoneErrorMs(m.receivedAt, listedAt, at));
          }
        }
        listedAt = at;
        // The same listing again (what idle polling brings every few seconds): nothing to tell the list.
        const unchanged = listed !== null && sameListing(listed, messages) && sameCut(listed.cut, messages.cut);
        listed = messages;
        if (!unchanged) {
          known = new Set(messages.map((m) => m.id));
          dispatch({
            type: 'listed',
            messages,
            zoneErrorMs: votes.errorMs,
            ...(messages.cut ? { cut: messages.cut } : {}),
          });
        }
        if (!answered) {
          answered = true;
          answerRef.current?.(true);
        }
      },
      onStatus: (status) => {
        if (cancelled) return;
        pushed.phase(status.phase);
        clearTimeout(showChecking);
        // The first check, and retries, say so at once; the usual round only when it takes long.
        if (status.phase === 'checking' && status.failures === 0 && status.lastSuccessAt !== null) {
          showChecking = setTimeout(() => !cancelled && poll.set(status), CHECKING_SHOWN_AFTER_MS);
          return;
        }
        // The same as shown (a check that changed nothing the header says): no redraw.
        if (!sameShownStatus(poll.get(), status)) poll.set(status);
      },
      classify: (error) => {
        const verdict = pollVerdict(error);
        if (!cancelled && verdict.stop && refusedBeforeExpiry(error, expiresAtMs, clock())) {
          answerRef.current?.(false);
        }
        return verdict;
      },
    });
    // What pushed mail asks for (pushed-checks.ts): made before the first check starts, so that it knows
    // of that one too (mail pushed during it gets one more after it).
    const pushed = pushedChecks(poller);
    pollerRef.current = poller;
    poller.start();
    const watch = api.watchMail?.(session, {
      onMail: () => pushed.mail(),
      onState: (state) => {
        if (cancelled) return;
        setPush(state);
        poller.setInterval(pollIntervalFor(intervalMs, state));
      },
    });
    return () => {
      cancelled = true;
      clearTimeout(showChecking);
      pushed.stop();
      watch?.stop();
      poller.stop('left');
      pollerRef.current = null;
    };
  }, [api, session, expiresAtMs, intervalMs, clock, poll]);

  return {
    state,
    dispatch,
    poll,
    live,
    refresh: () => pollerRef.current?.refresh() ?? false,
    zoneErrorMs: state.zoneErrorMs,
    push,
    intervalMs: pollIntervalFor(intervalMs, push),
  };
}

const isLive = (status: PollStatus) => status.phase !== 'stopped';

/**
 * Two statuses the header shows alike (pollText, expiryText): the same phase, failures, error and
 * reasons; the last success in the same second (it is shown to the second, "last checked 14:02:11");
 * the next check's time only while it is shown (the countdown of a retry). Checks that follow each other
 * within a second (r pressed again and again, pushed mail) then redraw nothing.
 */
export function sameShownStatus(a: PollStatus, b: PollStatus): boolean {
  const second = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
  return (
    a.phase === b.phase &&
    a.failures === b.failures &&
    a.error === b.error &&
    a.rateLimited === b.rateLimited &&
    a.stopReason === b.stopReason &&
    second(a.lastSuccessAt) === second(b.lastSuccessAt) &&
    (b.phase !== 'retrying' || a.nextAt === b.nextAt)
  );
}
