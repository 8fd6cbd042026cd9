/** Types the app's pieces share. */

/** The in-process reference service, when the app started one (local mode). */
export interface LocalServiceInfo {
  smtpHost: string;
  smtpPort: number;
}

/** A line for the status bar. */
export interface StatusMessage {
  text: string;
  kind: 'info' | 'error';
}
