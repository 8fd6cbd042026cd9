/**
 * A promise whose outcome can also be read synchronously once it has settled. The app asks for the
 * domains before its UI code is loaded; by the first render the answer is usually in, and the first
 * frame shows the domains instead of "Loading".
 */

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface Early<T> {
  promise: Promise<T>;
  /** The outcome, once settled; undefined while pending. */
  settled(): Outcome<T> | undefined;
}

/** Wraps `promise`; a rejection is kept for whoever reads it, never left unhandled. */
export function early<T>(promise: Promise<T>): Early<T> {
  let outcome: Outcome<T> | undefined;
  promise.then(
    (value) => (outcome = { ok: true, value }),
    (error: unknown) => (outcome = { ok: false, error }),
  );
  return { promise, settled: () => outcome };
}
