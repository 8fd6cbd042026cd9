/**
 * Ctrl-Z, as any terminal program does it: the terminal is given back as it was (main screen, cursor
 * shown, raw mode off), SIGTSTP stops the whole process group (so a wrapper such as `npx` stops too and
 * the shell gets its prompt back), and when the shell's `fg` sends SIGCONT the app takes the screen again
 * (alternate screen, cursor hidden, raw mode) and draws its last frame anew. Polling simply goes on:
 * its timers were stopped with the process. A kernel stops the sender before kill() returns, so the
 * return is the moment to take the screen back; a SIGCONT after a stop from outside (SIGSTOP) redraws too.
 */
import { canBeResumed } from '../../platform/job-control';

export const ENTER_ALT_SCREEN = '\x1b[?1049h';
export const LEAVE_ALT_SCREEN = '\x1b[?1049l';
export const SHOW_CURSOR = '\x1b[?25h';
export const HIDE_CURSOR = '\x1b[?25l';
const CURSOR_HOME = '\x1b[H';
// Our own SIGCONT is handled on the next turn of the event loop: well within this.
const OWN_CONTINUE_MS = 1000;

export interface SuspendOptions {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Whether a stop could be resumed (platform/job-control.ts); injected by tests. */
  resumable?: () => boolean;
  /** Stops the process and returns once it runs again; default SIGTSTP to our process group. */
  stop?: () => void;
  /** Milliseconds, for telling our own SIGCONT from a later one (tests move it). */
  now?: () => number;
  /** Called just before the screen is given back (the diff writer parks the cursor below the frame). */
  beforeLeave?: () => void;
}

export interface Suspender {
  /** Ctrl-Z: null once back from the stop, or why the app did not stop. */
  suspend(redraw: () => void): string | null;
  /** Stops listening for SIGCONT. */
  dispose(): void;
}

/** The words when no shell could bring the app back. */
export const NO_JOB_CONTROL = 'Not suspended: nothing here could resume it (no shell job control); q quits';

/** Suspends and resumes the app on a real terminal. */
export function createSuspender(options: SuspendOptions): Suspender {
  const { stdin, stdout } = options;
  const resumable = options.resumable ?? (() => canBeResumed());
  const stop = options.stop ?? (() => process.kill(0, 'SIGTSTP'));
  const now = options.now ?? Date.now;
  let redrawLast: (() => void) | null = null;
  // The SIGCONT of our own stop arrives just after we already took the screen back: it is skipped.
  let resumedAt = Number.NEGATIVE_INFINITY;

  const takeScreen = () => {
    if (stdin.isTTY) stdin.setRawMode(true);
    stdout.write(ENTER_ALT_SCREEN + HIDE_CURSOR + CURSOR_HOME);
    redrawLast?.();
  };
  const onContinue = () => {
    if (now() - resumedAt < OWN_CONTINUE_MS) return;
    // Stopped from outside (SIGSTOP) and continued: the shell may have drawn over us, or reset the tty.
    if (redrawLast) takeScreen();
  };
  process.on('SIGCONT', onContinue);

  return {
    suspend(redraw) {
      redrawLast = redraw;
      if (!resumable()) return NO_JOB_CONTROL;
      options.beforeLeave?.();
      stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
      if (stdin.isTTY) stdin.setRawMode(false);
      stop();
      resumedAt = now();
      takeScreen();
      return null;
    },
    dispose() {
      process.off('SIGCONT', onContinue);
    },
  };
}
