/**
 * Test helpers for the Ink screens: named keys, a renderer at a chosen terminal size, and waits on the
 * frame (never a sleep). Frames are compared without ANSI styling so assertions read as the screen does.
 */
import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { keyByKey, splitKeys } from '../../src/tui/widgets/key-stdin';
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

/** Ink's stdin in ink-testing-library: what the app reads keys from. */
interface InkStdin extends EventEmitter {
  write(data: string): void;
}

/**
 * The app's own key path in front of Ink's stdin, as run-app.tsx puts it in front of the terminal
 * (src/tui/widgets/key-stdin.ts): what a test writes is split into keys, and each reaches Ink only after
 * React has drawn and run the effects of the key before. Written straight to Ink, a key typed the moment
 * a frame showed could reach the screens before the one that frame opened had subscribed to keys (its
 * effect not run yet), and be taken by the screen below: a race of the test, not of the app, whose
 * terminal path queues each key behind React's work (issue 14.20: "/beta" typed under load lost all
 * four letters to the inbox in the test; the built app in a pty lost none in 25 rounds under load).
 */
function keyPath(ink: InkStdin) {
  const typed: string[] = [];
  const source = Object.assign(new EventEmitter(), {
    isTTY: true,
    read: () => typed.shift() ?? null,
    setEncoding: () => undefined,
    setRawMode: () => undefined,
    ref: () => undefined,
    unref: () => undefined,
  });
  const keys = keyByKey(source as unknown as NodeJS.ReadStream);
  let queued = 0;
  let delivered = 0;
  const pull = () => {
    // Ink reads stdin only while a screen listens for keys: until then they wait, as in a terminal.
    if (ink.listenerCount('readable') === 0) return;
    const next = () => keys.read() as string | null;
    for (let key = next(); key !== null; key = next()) {
      delivered += 1;
      ink.write(key);
    }
  };
  keys.on('readable', pull);
  ink.on('newListener', (event: string) => {
    if (event === 'readable') setImmediate(pull);
  });
  return {
    write(text: string) {
      const split = splitKeys(text);
      queued += split.keys.length + (split.rest ? 1 : 0);
      typed.push(text);
      source.emit('readable');
    },
    /** True once every key written so far has reached Ink. */
    drained: () => delivered >= queued,
  };
}

/** The frame as plain text. */
export const plain = (frame: string | undefined): string => (frame ?? '').replace(ANSI, '');

/**
 * The frame's lines joined into one, each line's padding and break a single space: a status or a
 * question that wraps over lines reads as the sentence it is.
 */
export const joined = (frame: string): string =>
  frame
    .split('\n')
    .map((l) => l.trim())
    .join(' ');

export interface Screen {
  /** The last frame as plain text. */
  frame(): string;
  /** Frames written so far (raw, with styling). */
  frames: string[];
  /** Writes keys one at a time (each its own chunk, as a typist would), each read by the app before the next. */
  press(...keys: string[]): Promise<void>;
  /** Types text as one chunk (like a paste); resolves once the app has read all of it. */
  type(text: string): Promise<void>;
  /** Writes to the terminal at once, nothing awaited (keys typed faster than a frame; timing a key). */
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
  const keys = keyPath(r.stdin as unknown as InkStdin);
  // Until the app has read what was written (and then one more turn for what the key set off).
  const read = async () => {
    try {
      await waitFor(keys.drained, { timeoutMs: 5000, intervalMs: 1 });
    } catch {
      throw new Error(`A key was never read (no screen listens for keys?); last frame:\n${frame()}`);
    }
    await settle();
  };
  const screen: Screen = {
    frame,
    frames: r.frames,
    async press(...pressed) {
      for (const key of pressed) {
        keys.write(key);
        await read();
      }
    },
    async type(text) {
      keys.write(text);
      await read();
    },
    write(text) {
      keys.write(text);
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
