/**
 * Bounded memories of what a provider told us (tokens seen, download URLs): insertion order is age, a
 * key put again becomes the newest, and the oldest go past `max`. Sets and Maps keep insertion order.
 */

/** Drops the oldest entries of `kept` until it holds at most `max`. */
function dropOldest<K>(kept: Set<K> | Map<K, unknown>, max: number): void {
  for (const oldest of kept.keys()) {
    if (kept.size <= max) break;
    kept.delete(oldest);
  }
}

/** Adds `key` to `kept` as its newest entry, keeping at most `max`. */
export function keepNewest<K>(kept: Set<K>, key: K, max: number): void {
  kept.delete(key);
  kept.add(key);
  dropOldest(kept, max);
}

/** Sets `key` in `kept` as its newest entry, keeping at most `max`. */
export function setNewest<K, V>(kept: Map<K, V>, key: K, value: V, max: number): void {
  kept.delete(key);
  kept.set(key, value);
  dropOldest(kept, max);
}

/**
 * Marks the entries of `kept` that are `listed` again as its newest, and drops the oldest past `max`: what
 * is still listed stays while the list is no longer than `max` (wait's judged message ids).
 */
export function renewListed<K>(kept: Set<K>, listed: Iterable<K>, max: number): void {
  for (const key of listed) if (kept.delete(key)) kept.add(key);
  dropOldest(kept, max);
}
