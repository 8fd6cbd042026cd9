/** Types the app's pieces share. */

/** The in-process reference service, when the app started one (local mode). */
export interface LocalServiceInfo {
  smtpHost: string;
  smtpPort: number;
  /** The pid of the service when it is not the app's own but one already running on the data dir. */
  sharedPid?: number;
}

/** A line for the status bar. */
export interface StatusMessage {
  text: string;
  kind: 'info' | 'error';
}
