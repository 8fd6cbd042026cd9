/**
 * Whose terminal a measure is for. What the app learns of a terminal's widths (whether it clusters
 * graphemes, DEC mode 2027) belongs to that terminal's app, never to the process: the service draws
 * one app per SSH session, each on a terminal of its own. Code that runs for an app runs in its widths
 * (withWidths, AsyncLocalStorage: timers and promises started there keep them), and every render of an
 * app's Ink root enters them again (tui/terminal/root-widths.ts), whatever started it. Outside any app
 * (the scripting commands, `--help`) the measure is the widest, the one no terminal draws wider.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How a terminal draws grapheme clusters, as far as the measure needs to know. */
export interface TerminalWidths {
  /** It clusters graphemes (answered DEC mode 2027 as set): an RGI emoji cluster is 2 columns. */
  readonly clusters: boolean;
  /** A name per kind, keying what is cached by text (text/width-keyed-lru.ts). */
  readonly key: string;
}

/** Every cluster at the widest any terminal draws it: the default, right on every terminal. */
export const WIDEST: TerminalWidths = Object.freeze({ clusters: false, key: 'widest' });
/** A terminal that said it clusters graphemes. */
export const CLUSTERED: TerminalWidths = Object.freeze({ clusters: true, key: 'clustered' });

/** The widths of a terminal that answered (or not) that it clusters graphemes. */
export const widthsFor = (clusters: boolean): TerminalWidths => (clusters ? CLUSTERED : WIDEST);

// Made on first use: a process that never draws for a clustering terminal never makes one.
let store: AsyncLocalStorage<TerminalWidths> | undefined;

/** The widths of the app whose code is running (WIDEST outside any). */
export function activeWidths(): TerminalWidths {
  return store?.getStore() ?? WIDEST;
}

/** Runs `fn` (and what it starts: timers, promises) in `widths`. */
export function withWidths<T>(widths: TerminalWidths, fn: () => T): T {
  if (widths === activeWidths()) return fn();
  store ??= new AsyncLocalStorage();
  return store.run(widths, fn);
}

/** Enters `widths` for the rest of this turn of the event loop (and what it starts): a render's root. */
export function enterWidths(widths: TerminalWidths): void {
  if (widths === activeWidths()) return;
  store ??= new AsyncLocalStorage();
  store.enterWith(widths);
}
