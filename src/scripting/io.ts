/**
 * What a scripting command talks to: stdout for data, stderr for messages, the environment. Passed in
 * (not taken from `process`) so tests run commands in-process with captured output.
 */
import type { SavedSessionStore } from '../state/saved-sessions';

/** Exit codes of the scripting commands (documented in docs/scripting.md). */
export const EXIT = {
  ok: 0,
  /** Timeout, not found, service error or refusal. */
  failed: 1,
  /** Bad usage or bad configuration: nothing was asked of the service. */
  usage: 2,
} as const;

export interface Writable {
  write(chunk: string): unknown;
}

export interface ScriptIo {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Width for rendering bodies (`read`, `wait --print text`); default 80, or the terminal's. */
  columns?: number;
  /**
   * Aborts a waiting command (tests; the CLI relies on SIGINT ending the process); runScript aborts it
   * too when the command ends, cancelling every request and wait its providers still have in flight.
   */
  signal?: AbortSignal;
  /** Clock for pruning saved sessions and for remaining-time messages. */
  now?: () => Date;
  /** The saved addresses to use instead of the user's file (a caller over SSH: theirs, kept by the service). */
  sessions?: SavedSessionStore;
  /**
   * The app's local service (the reference service on this user's data dir): the one running there (the
   * app's, or `serve`'s), or one started in this process as the app starts it. Absent where a command
   * may not run it (over SSH): then the app's local addresses cannot be reached.
   */
  openLocal?: () => Promise<LocalEndpoint>;
}

/** Where the local service listens, as openLocal found or started it. */
export interface LocalEndpoint {
  readonly httpUrl: string;
  readonly smtpHost: string;
  readonly smtpPort: number;
  /** Set when another process runs it (the app, `serve`): its pid. */
  readonly sharedPid?: number;
  /** Stops it when this process runs it; leaves another process's running. */
  close(): Promise<void>;
}

/** The real process's streams and environment. */
export function processIo(): ScriptIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  };
}

/** A failure with a message for stderr and an exit code; never carries a token or a stack to the user. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

/** Bad usage: exit 2, with a pointer to `--help`. */
export class UsageError extends ScriptError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}
