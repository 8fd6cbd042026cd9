/**
 * A Store whose every operation is timed, for the storage latency histogram (`--metrics` only: without
 * metrics the store is used as it is). Each method that answers with a promise reports its name and how
 * long the promise took, settled either way; the method names are the Store interface's, a closed set.
 */
import type { Store } from '../store/store';

/** `store`, with each async operation's time (ms) told to `observe`. */
export function timedStore(store: Store, observe: (op: string, ms: number) => void): Store {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      let timed = wrapped.get(key);
      if (!timed) {
        const method = value as (...args: unknown[]) => unknown;
        timed = (...args: unknown[]) => {
          const started = performance.now();
          const result = method.apply(target, args);
          if (!(result instanceof Promise)) return result;
          const done = () => observe(key, performance.now() - started);
          result.then(done, done);
          return result;
        };
        wrapped.set(key, timed);
      }
      return timed;
    },
  });
}
