/**
 * A store's own lines (a migration, a database connection lost and back, totals corrected): the text, and
 * for the service's log (observe/log.ts) its level and a stable event name, so an alert can match the
 * event rather than the words. A caller that keeps only the text (a test's array) ignores the note.
 */
export interface StoreNote {
  level: 'info' | 'warn' | 'error';
  event: string;
}

export type StoreLog = (line: string, note?: StoreNote) => void;
