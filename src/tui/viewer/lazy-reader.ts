/**
 * Loads reader.ts (HTML conversion, code and link detection) on first use, once. `loadedReader()` is the
 * synchronous view for render code: undefined until the import has settled.
 */
import { useEffect, useState } from 'react';

export type Reader = typeof import('./reader');

let loading: Promise<Reader> | undefined;
let loaded: Reader | undefined;

/** The reader module, loading it on the first call. */
export function loadReader(): Promise<Reader> {
  loading ??= import('./reader').then((reader) => (loaded = reader));
  return loading;
}

/** The reader if it is loaded already. */
export const loadedReader = (): Reader | undefined => loaded;

/** The reader for a component: undefined on the renders before it has loaded (it asks for it). */
export function useReader(): Reader | undefined {
  const [reader, setReader] = useState(loaded);
  useEffect(() => {
    if (reader) return;
    let cancelled = false;
    void loadReader().then((r) => !cancelled && setReader(r));
    return () => {
      cancelled = true;
    };
  }, [reader]);
  return reader;
}
