/**
 * What Ink gets for `quick-lru` (scripts/build-config.mjs, vitest.config.ts: only for Ink's own imports).
 * Ink keeps a text's measured size (measure-text.js) and its wrapping (wrap-text.js) in module-wide caches
 * keyed by the text alone: one terminal's widths would be served to another's app. Here every key is
 * the running app's widths' (active-widths.ts) and the text, so each terminal gets its own measures; the
 * cache itself is the real quick-lru Ink asked for (its bound and eviction as published).
 */
import QuickLRU from 'quick-lru';
import { activeWidths } from './active-widths';

const keyed = (key: string): string => `${activeWidths().key}\u0000${key}`;

export default class WidthKeyedLru<V> {
  private readonly lru: QuickLRU<string, V>;

  constructor(options: { maxSize: number }) {
    this.lru = new QuickLRU({ maxSize: Math.max(1, options.maxSize) });
  }

  get(key: string): V | undefined {
    return this.lru.get(keyed(key));
  }

  set(key: string, value: V): this {
    this.lru.set(keyed(key), value);
    return this;
  }

  has(key: string): boolean {
    return this.lru.has(keyed(key));
  }

  delete(key: string): boolean {
    return this.lru.delete(keyed(key));
  }

  clear(): void {
    this.lru.clear();
  }

  get size(): number {
    return this.lru.size;
  }
}
