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
}

/** Where the CLI reads and writes; the process's own streams unless a test passes others. */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
}
