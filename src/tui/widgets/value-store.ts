/**
 * A value that changes outside React (the poller's status), read by the components that show it and by
 * no others: a change re-renders only those whose selected part changed (useSyncExternalStore), not the
 * whole screen that owns the value.
 */
import { useCallback, useSyncExternalStore } from 'react';

export interface ValueStore<T> {
  get(): T;
  set(value: T): void;
  /** Calls `listener` after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** A store holding `initial`. */
export function createValueStore<T>(initial: T): ValueStore<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      if (Object.is(next, value)) return;
      value = next;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The store's value, or the part `select` picks (a re-render only when that part changes). */
export function useStoreValue<T, S = T>(store: ValueStore<T>, select?: (value: T) => S): S {
  const read = useCallback(() => (select ? select(store.get()) : (store.get() as unknown as S)), [store, select]);
  return useSyncExternalStore(store.subscribe, read, read);
}
