/**
 * Loads reader.ts (HTML conversion, code and link detection) on first use, once. `loadedReader()` is the
 * synchronous view for render code: undefined until the import has settled. A failed load (the installed
 * files replaced under a running app) is never a crash: the viewer says so, and the next ask retries.
 */
import { useEffect, useState } from 'react';

export type Reader = typeof import('./reader');

let loading: Promise<Reader> | undefined;
let loaded: Reader | undefined;

/** The reader module, loading it on the first call (and again after a failed load). */
export function loadReader(): Promise<Reader> {
  if (!loading) {
    const attempt = import('./reader').then((reader) => (loaded = reader));
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

/** The reader if it has loaded, for render code that can do without it meanwhile. */
export function loadedReader(): Reader | undefined {
  return loaded;
}

/** Starts loading the reader ahead of need; a failure waits for the next ask. */
export function preloadReader(): void {
  loadReader().catch(() => undefined);
}

/** The reader for a component, or the error that kept it from loading; undefined while it loads. */
export function useReader(): Reader | Error | undefined {
  const [state, setState] = useState<Reader | Error | undefined>(loaded);
  useEffect(() => {
    if (state) return;
    let cancelled = false;
    loadReader().then(
      (reader) => !cancelled && setState(reader),
      (error: unknown) => !cancelled && setState(error instanceof Error ? error : new Error(String(error))),
    );
    return () => {
      cancelled = true;
    };
  }, [state]);
  return state;
}
