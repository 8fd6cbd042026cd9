/**
 * The session's status line and what it says. A transient line (copied, saved, deleted, new mail) fades
 * FADE_MS after it was said; a line that stands for something still going on ("Deleting…", a question's
 * typed digits) and an error stay until something replaces them or the view they describe goes (moving
 * to another message, back to the list). The clock is the app's (injected), so tests move time.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { StatusMessage } from '../wording/status-text';

/** Long enough to read a line twice. */
export const FADE_MS = 5000;
// Looking again at least this often: a clock that jumps (a test's, a suspended laptop's) is noticed soon.
const RECHECK_MS = 1000;

/** A status line with, for a transient one, when it goes. */
export interface TimedStatus extends StatusMessage {
  fadeAt?: number;
}

export interface StatusHandle {
  status: TimedStatus | null;
  /** A transient line: fades. */
  info(text: string): void;
  /** A line that stays until replaced (something is going on, or waiting for a key). */
  note(text: string): void;
  /** An error: stays until replaced. */
  fail(text: string): void;
  clear(): void;
}

/** The status of one session. */
export function useStatus(clock: () => number): StatusHandle {
  const [status, setStatus] = useState<TimedStatus | null>(null);
  // What was last said, so clearing a clear line asks React for nothing: React keeps every update it
  // bailed out of in the component's queue until that component renders again, and the session view
  // renders rarely (r pressed again and again, each clearing the line, piled up one update a press).
  const said = useRef<TimedStatus | null>(null);
  const say = useCallback((next: TimedStatus | null) => {
    said.current = next;
    setStatus(next);
  }, []);
  const info = useCallback((text: string) => say({ text, kind: 'info', fadeAt: clock() + FADE_MS }), [clock, say]);
  const note = useCallback((text: string) => say({ text, kind: 'info' }), [say]);
  const fail = useCallback((text: string) => say({ text, kind: 'error' }), [say]);
  const clear = useCallback(() => {
    if (said.current !== null) say(null);
  }, [say]);
  return { status, info, note, fail, clear };
}

/** `status` unless it has faded by now; re-renders itself when it fades. */
export function useFaded(status: TimedStatus | null, clock: () => number): TimedStatus | null {
  const [, recheck] = useState(0);
  const fadeAt = status?.fadeAt;
  const gone = fadeAt !== undefined && clock() >= fadeAt;
  useEffect(() => {
    if (fadeAt === undefined || gone) return;
    // Looks at the clock every RECHECK_MS at most, and re-renders only once the line has faded: a look
    // that changes nothing draws nothing.
    let timer: ReturnType<typeof setTimeout>;
    const look = () => {
      if (clock() >= fadeAt) recheck((n) => n + 1);
      else timer = setTimeout(look, Math.max(10, Math.min(RECHECK_MS, fadeAt - clock())));
    };
    timer = setTimeout(look, Math.max(10, Math.min(RECHECK_MS, fadeAt - clock())));
    return () => clearTimeout(timer);
  }, [fadeAt, gone, clock]);
  return gone ? null : status;
}
