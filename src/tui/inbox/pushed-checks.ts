/**
 * The checks pushed mail asks for (use-inbox.ts), at most one every PUSH_FOLLOW_UP_MS: at once when no
 * check has ended that recently; else when that time is up. Mail pushed while a check is on its way (it
 * may have missed it) gets one more, that long after it ends; mail pushed while one is due waits for it,
 * and a check that starts meanwhile (the poller's own, `r`) takes its place. A check ends for this
 * whether it brought a listing or failed.
 * A burst of mail (50 messages over one SMTP connection) asked for 9-10 checks of the whole listing
 * (1,000 messages), each answered, parsed and drawn back to back; now 2-3. Mail after a quiet spell is
 * still checked at once (docs/performance.md, "A burst of pushed mail").
 */
import type { Poller, PollPhase } from '../../client/pacing/poller';

export const PUSH_FOLLOW_UP_MS = 250;

export interface PushedChecks {
  /** The push said mail came. */
  mail(): void;
  /** The poller's phase, each time it says it (a check starts at 'checking' and ends at any other). */
  phase(phase: PollPhase): void;
  /** The inbox is gone: nothing more is asked. */
  stop(): void;
}

export function pushedChecks(
  poller: Pick<Poller, 'refresh' | 'status'>,
  followUpMs = PUSH_FOLLOW_UP_MS,
  now: () => number = () => performance.now(),
): PushedChecks {
  let again = false;
  let checking = false;
  let due: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let endedAt = Number.NEGATIVE_INFINITY;
  const checkIn = (ms: number) => {
    due = setTimeout(() => {
      due = undefined;
      // After the poller has scheduled its next check: refresh() then replaces it with one now. It
      // refuses during a Retry-After wait: the next scheduled check finds the mail.
      if (!stopped) poller.refresh();
    }, ms);
  };
  return {
    mail() {
      if (stopped || due) return;
      if (checking) {
        again = true;
        return;
      }
      const wait = endedAt + followUpMs - now();
      if (wait > 0) checkIn(wait);
      else poller.refresh();
    },
    phase(phase) {
      if (phase === 'checking') {
        if (checking) return;
        checking = true;
        // This check finds whatever the due one was for.
        clearTimeout(due);
        due = undefined;
        return;
      }
      if (!checking) return;
      checking = false;
      endedAt = now();
      if (stopped || !again) return;
      again = false;
      checkIn(followUpMs);
    },
    stop() {
      stopped = true;
      clearTimeout(due);
    },
  };
}
