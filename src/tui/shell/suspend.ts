/**
 * Ctrl-Z, as any terminal program does it, on Ink's own suspendTerminal(): Ink gives the terminal back as
 * it was (main screen, cursor shown, raw mode off), SIGTSTP stops the whole process group (so a wrapper
 * such as `npx` stops too and the shell gets its prompt back), and when the shell's `fg` sends SIGCONT
 * Ink takes the screen again and draws its frame anew. Polling simply goes on: its timers were stopped
 * with the process. A kernel stops the sender before kill() returns, so the return is the moment to take
 * the screen back; a SIGCONT after a stop from outside (SIGSTOP) redraws the same way.
 */
import { canBeResumed } from '../../platform/job-control';

/** Ink's useApp().suspendTerminal with a callback: the terminal is the shell's while it runs. */
export type SuspendTerminal = (callback: () => void | Promise<void>) => Promise<void>;

export interface JobControlOptions {
  /** Whether a stop could be resumed (platform/job-control.ts); injected by tests. */
  resumable?: () => boolean;
  /** Stops the process and returns once it runs again; default SIGTSTP to our process group. */
  stop?: () => void;
  /** Milliseconds, for telling our own SIGCONT from a later one (tests move it). */
  now?: () => number;
}

export interface JobControl {
  /** Ctrl-Z: null once back from the stop, or why the app did not stop. */
  suspend(suspendTerminal: SuspendTerminal): Promise<string | null>;
  /** Takes the screen again after a stop from outside (SIGSTOP, then SIGCONT); returns the unwatch. */
  watch(suspendTerminal: SuspendTerminal): () => void;
}

/** The words when no shell could bring the app back. */
export const NO_JOB_CONTROL = 'Not suspended: nothing here could resume it (no shell job control); q quits';

// Our own SIGCONT is handled on the next turn of the event loop: well within this.
const OWN_CONTINUE_MS = 1000;

/** Suspends and resumes the app on a real terminal. */
export function createJobControl(options: JobControlOptions = {}): JobControl {
  const resumable = options.resumable ?? (() => canBeResumed());
  const stop = options.stop ?? (() => process.kill(0, 'SIGTSTP'));
  const now = options.now ?? Date.now;
  // The SIGCONT of our own stop arrives just after Ink took the screen back: it is skipped.
  let resumedAt = Number.NEGATIVE_INFINITY;
  let stopping = false;

  return {
    async suspend(suspendTerminal) {
      if (!resumable()) return NO_JOB_CONTROL;
      stopping = true;
      try {
        await suspendTerminal(() => {
          stop();
          resumedAt = now();
        });
      } finally {
        stopping = false;
      }
      return null;
    },
    watch(suspendTerminal) {
      const onContinue = () => {
        if (stopping || now() - resumedAt < OWN_CONTINUE_MS) return;
        // Stopped from outside and continued: the shell may have drawn over us, or reset the tty. An empty
        // suspension makes Ink give the terminal back and take it again, drawn from scratch.
        void suspendTerminal(() => undefined).catch(() => undefined);
      };
      process.on('SIGCONT', onContinue);
      return () => {
        process.off('SIGCONT', onContinue);
      };
    },
  };
}
