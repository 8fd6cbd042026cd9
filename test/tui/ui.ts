/**
 * Test helpers for the Ink screens: named keys, a renderer at a chosen terminal size, and waits on the
 * frame (never a sleep). Frames are compared without ANSI styling so assertions read as the screen does.
 */
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { waitFor } from '../harness/wait';

/** Named keys as a terminal sends them. */
export const KEY = {
  ENTER: '\r',
  ESC: '\x1b',
  ARROW_UP: '\x1b[A',
  ARROW_DOWN: '\x1b[B',
  ARROW_RIGHT: '\x1b[C',
  ARROW_LEFT: '\x1b[D',
  PAGE_UP: '\x1b[5~',
  PAGE_DOWN: '\x1b[6~',
  HOME: '\x1b[H',
  END: '\x1b[F',
  BACKSPACE: '\x7f',
  SPACE: ' ',
  TAB: '\t',
} as const;

// SGR and other CSI sequences Ink writes for colour and emphasis.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

const settle = () => new Promise((resolve) => setTimeout(resolve, 0)).then(() => new Promise((r) => setImmediate(r)));

/** The frame as plain text. */
export const plain = (frame: string | undefined): string => (frame ?? '').replace(ANSI, '');

/**
 * The frame's lines joined into one, each line's padding and break a single space: a status or a
 * question that wraps over lines reads as the sentence it is.
 */
export const joined = (frame: string): string => frame.split('\n').map((l) => l.trim()).join(' ');

export interface Screen {
  /** The last frame as plain text. */
  frame(): string;
  /** Frames written so far (raw, with styling). */
  frames: string[];
  /** Writes keys one at a time (each its own chunk, as a typist would). */
  press(...keys: string[]): Promise<void>;
  /** Types text as one chunk (like a paste), after letting key listeners settle. */
  type(text: string): Promise<void>;
  /** Writes to stdin at once, nothing awaited (for timing a key). */
  write(text: string): void;
  /** Waits until the frame contains `text` (or matches), returns the frame. */
  waitFor(match: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Waits until the frame no longer contains `text`. */
  waitForGone(text: string, timeoutMs?: number): Promise<string>;
  /** Changes the terminal size and tells the app, as SIGWINCH would. */
  resize(columns: number, rows: number): void;
  unmount(): void;
  stdout: NodeJS.WriteStream;
}

/** Renders `tree` on a fake terminal of `columns` x `rows`. */
export function renderAt(tree: ReactElement, columns = 80, rows = 24): Screen {
  const r = render(tree);
  const stdout = r.stdout as unknown as NodeJS.WriteStream & { frames: string[] };
  let size = { columns, rows };
  Object.defineProperty(stdout, 'columns', { get: () => size.columns, configurable: true });
  Object.defineProperty(stdout, 'rows', { get: () => size.rows, configurable: true });
  // The first render happened at the library's default width; this brings the app to the asked size.
  stdout.emit('resize');
  const frame = () => plain(r.lastFrame());
  const matcher = (match: string | RegExp | ((f: string) => boolean)) => (f: string) =>
    typeof match === 'string' ? f.includes(match) : match instanceof RegExp ? match.test(f) : match(f);
  const screen: Screen = {
    frame,
    frames: r.frames,
    async press(...keys) {
      for (const key of keys) {
        // Key listeners are (re)attached in effects after a frame is drawn: let those run first,
        // then let Ink handle the key (a lone Esc is decided on the next tick).
        await settle();
        r.stdin.write(key);
        await settle();
      }
    },
    async type(text) {
      await settle();
      r.stdin.write(text);
      await settle();
    },
    write(text) {
      r.stdin.write(text);
    },
    async waitFor(match, timeoutMs = 5000) {
      const test = matcher(match);
      try {
        return await waitFor(() => (test(frame()) ? frame() : null), { timeoutMs, intervalMs: 10 });
      } catch {
        throw new Error(`Frame never matched ${String(match)}; last frame:\n${frame()}`);
      }
    },
    async waitForGone(text, timeoutMs = 5000) {
      try {
        return await waitFor(() => (!frame().includes(text) ? frame() : null), { timeoutMs, intervalMs: 10 });
      } catch {
        throw new Error(`Frame still contains ${text}; last frame:\n${frame()}`);
      }
    },
    resize(c, rws) {
      size = { columns: c, rows: rws };
      stdout.emit('resize');
    },
    unmount() {
      r.unmount();
      r.cleanup();
    },
    stdout,
  };
  return screen;
}
