/**
 * Types the app shell shares with the screens. app-cli.ts and run-app.tsx both name CliIo; it lives here so
 * neither imports the other.
 */

/** The in-process reference service, when the app started one (local mode). */
export interface LocalServiceInfo {
  smtpHost: string;
  smtpPort: number;
  /** The pid of the service when it is not the app's own but one already running on the data dir. */
  sharedPid?: number;
  /**
   * Tells `listener` of each inbox the catch-all made (mail to a name nobody had made); returns how to
   * stop. Only while the service is the app's own.
   */
  onCatchAll?: (listener: (made: { email: string; token: string; expiresAt: Date }) => void) => () => void;
}

/** Where the CLI reads and writes; the process's own streams unless a test passes others. */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
}
