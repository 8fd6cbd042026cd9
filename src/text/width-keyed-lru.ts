/**
 * What Ink gets for `quick-lru` (scripts/build-config.mjs, vitest.config.ts: only for Ink's own imports).
 * Ink keeps a text's measured size (measure-text.js) and its wrapping (wrap-text.js) in module-wide caches
 * keyed by the text alone: one terminal's widths would be served to another's app. Here every key is
 * the running app's widths' (active-widths.ts) and the text, so each terminal gets its own measures.
 * A bounded map whose oldest entry goes first, with the part of quick-lru's interface Ink uses.
 */
import { activeWidths } from './active-widths';

export default class WidthKeyedLru<V> {
  private readonly map = new Map<string, V>();
  private readonly maxSize: number;

  constructor(options: { maxSize: number }) {
    this.maxSize = Math.max(1, options.maxSize);
  }

  private key(key: string): string {
    return `${activeWidths().key}\u0000${key}`;
  }

  get(key: string): V | undefined {
    const k = this.key(key);
    const value = this.map.get(k);
    if (value !== undefined) {
      // Used again: now the newest.
      this.map.delete(k);
      this.map.set(k, value);
    }
    return value;
  }

  set(key: string, value: V): this {
    const k = this.key(key);
    this.map.delete(k);
    this.map.set(k, value);
    if (this.map.size > this.maxSize) this.map.delete(this.map.keys().next().value as string);
    return this;
  }

  has(key: string): boolean {
    return this.map.has(this.key(key));
  }

  delete(key: string): boolean {
    return this.map.delete(this.key(key));
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
