/**
 * Drives the built program (dist/cli.js) in a real pseudo-terminal. Output goes to a headless xterm
 * (what a user would see) and is also kept as raw bytes (what the program actually wrote), so tests can
 * assert both on the screen and on the absence of escape sequences the app did not mean to send.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { IPty } from '@lydell/node-pty';
import type { Terminal as XTerm } from '@xterm/headless';
import { GRAPHEME_QUERY } from '../../src/tui/terminal/grapheme-query';

const require = createRequire(import.meta.url);
// @xterm/headless names an ESM build it does not ship; its CommonJS main is the one that exists.
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
const { Unicode11Addon } = require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');
const { UnicodeGraphemesAddon } =
  require('@xterm/addon-unicode-graphemes') as typeof import('@xterm/addon-unicode-graphemes');

/** The built program; TEMPMAIL_E2E_CLI points the tests at another build (e.g. a deliberately broken one). */
export const CLI = process.env.TEMPMAIL_E2E_CLI ?? fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Generous by default: CI runs on 2 shared cores, where a frame can take seconds to arrive. */
export const SCREEN_TIMEOUT_MS = 20_000;

const FRAME_START = '\x1b[?2026h';
const FRAME_END = '\x1b[?2026l';

export const KEYS = {
  ENTER: '\r',
  ESC: '\x1b',
  UP: '\x1b[A',
  DOWN: '\x1b[B',
  RIGHT: '\x1b[C',
  LEFT: '\x1b[D',
  CTRL_C: '\x03',
  BACKSPACE: '\x7f',
  TAB: '\t',
} as const;

export type ScreenMatch = string | RegExp | ((screen: string) => boolean);

export interface PtyApp {
  /** The program's process id (benchmarks read its CPU time). */
  pid(): number;
  /** Bytes the program wrote, as received. */
  raw(): Buffer;
  /** A position in the raw output, for `rawSince`. */
  mark(): number;
  /** Bytes written since `mark()` returned `from`. */
  rawSince(from: number): Buffer;
  /** Visible screen, one string per row, trailing spaces trimmed. */
  screen(): string[];
  screenText(): string;
  /** Rows (0-based) with inverse-video cells: how lists show their selection. */
  inverseRows(): number[];
  /** The real terminal: which buffer is active ('alternate' while the app draws full screen), modes. */
  terminal(): XTerm;
  write(keys: string): void;
  /**
   * Waits until the program has drawn and gone quiet, then sends the keys, then (optionally) waits for
   * the screen to match. Ink subscribes a screen's key handler after drawing it, and coalesces an Esc
   * with the next key into Alt+key, so keys sent straight after a frame can be lost or misread.
   */
  press(keys: string, expect?: ScreenMatch, timeoutMs?: number): Promise<string>;
  /**
   * Resolves once no output has arrived for `quietMs` (the app has drawn what it was going to) and the
   * last key went out at least as long ago: keys sent back to back can reach the app as one read, which
   * Ink takes for pasted text rather than two keys.
   */
  settle(quietMs?: number, timeoutMs?: number): Promise<void>;
  resize(cols: number, rows: number): void;
  /** Waits until the screen matches, then returns the screen text. */
  waitForScreen(match: ScreenMatch, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code. */
  exited(timeoutMs?: number): Promise<number>;
  /** Kills the program (SIGKILL) if it is still running. Safe to call twice. */
  kill(): void;
}

export interface SpawnOptions {
  args?: string[];
  /** Added to (and overriding) the test's environment; `undefined` removes a variable. */
  env?: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  cwd?: string;
  /**
   * How the terminal measures characters: xterm.js's default (Unicode 6 widths), '11' (Unicode 11 code
   * point widths, as xterm and VTE) or 'graphemes' (grapheme clusters, as Ghostty and WezTerm).
   */
  widths?: '6' | '11' | 'graphemes';
  /**
   * What the terminal answers when asked about grapheme clustering (DECRQM 2027): a DECRPM state (1 set,
   * 3 permanently set...). By default xterm.js's own answer, 0: it does not know the mode.
   */
  mode2027?: number;
  /** Another program in the pty instead of `node dist/cli.js` (a shell with job control, for Ctrl-Z). */
  command?: { file: string; args: string[] };
}

function describeMatch(match: ScreenMatch): string {
  return typeof match === 'function' ? match.name || 'a screen condition' : String(match);
}

function matcher(match: ScreenMatch): (screen: string) => boolean {
  if (typeof match === 'function') return match;
  if (typeof match === 'string') return (s) => s.includes(match);
  return (s) => match.test(s);
}

/** Starts `node dist/cli.js ...args` in a pty. CI is removed from its env: Ink prints only the last frame under CI. */
export function spawnApp(options: SpawnOptions = {}): PtyApp {
  if (!options.command && !existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const cols = options.cols ?? 100;
  const rows = options.rows ?? 30;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...options.env })) {
    if (v !== undefined) env[k] = v;
  }
  delete env.CI;
  delete env.GITHUB_ACTIONS;
  env.TERM = env.TERM && env.TERM !== 'dumb' ? env.TERM : 'xterm-256color';
  const term: XTerm = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  if (options.widths === '11') {
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
  } else if (options.widths === 'graphemes') {
    term.loadAddon(new UnicodeGraphemesAddon());
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let lastOutputAt = Date.now();
  // Ink wraps each frame in synchronized-output marks. A frame can reach us in several reads, and a
  // screen read between them shows half of it (a header already new over an old list): the screen is
  // only looked at while no frame is open. (@xterm/headless applies the bytes as they come.)
  let inFrame = false;
  let markTail = '';
  let lastWriteAt = 0;
  const file = options.command?.file ?? process.execPath;
  const argv = options.command?.args ?? [CLI, ...(options.args ?? [])];
  const child: IPty = pty.spawn(file, argv, {
    name: env.TERM,
    cols,
    rows,
    cwd: options.cwd ?? process.cwd(),
    env,
    // Buffers, not strings: the raw-byte assertions must see exactly what was written.
    encoding: null,
  });
  let exitCode: number | undefined;
  const exitWaiters: ((code: number) => void)[] = [];
  child.onData((data: string | Buffer) => {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    chunks.push(buf);
    size += buf.length;
    lastOutputAt = Date.now();
    // The last mark seen says whether a frame is open; a mark split between two reads is found through
    // the tail kept from the read before (shorter than a mark, so no mark is counted twice).
    const text = markTail + buf.toString('latin1');
    const open = text.lastIndexOf(FRAME_START);
    const close = text.lastIndexOf(FRAME_END);
    if (open >= 0 || close >= 0) inFrame = open > close;
    markTail = text.slice(-(FRAME_START.length - 1));
    answerQuestions(text);
    term.write(buf);
  });
  // The terminal answers what the program asks (device attributes, modes), as a real one does: xterm.js
  // answers once it has parsed the question. The app's start-up question about grapheme clustering
  // (src/tui/terminal/grapheme-query.ts) is answered here at once instead, as a terminal on the same
  // machine does, so that its deadline is never what a test depends on; xterm.js's own (later) answers
  // to it are left out.
  let swallow = 0;
  term.onData((reply) => {
    if (exitCode !== undefined) return;
    let rest = reply;
    while (swallow > 0) {
      const own = /\x1b\[\?2027;\d\$y|\x1b\[\?[\d;]*c/.exec(rest);
      if (!own) break;
      rest = rest.slice(0, own.index) + rest.slice(own.index + own[0].length);
      swallow--;
    }
    if (rest) child.write(rest);
  });
  const answerQuestions = (text: string) => {
    for (let at = text.indexOf(GRAPHEME_QUERY); at >= 0; at = text.indexOf(GRAPHEME_QUERY, at + 1)) {
      child.write(`\x1b[?2027;${options.mode2027 ?? 0}$y\x1b[?1;2c`);
      swallow += 2;
    }
  };
  child.onExit(({ exitCode: code }) => {
    // Once xterm has parsed what came before the exit: a test reads the screen (or which buffer is
    // active) right after exited(), and xterm parses asynchronously.
    term.write('', () => {
      exitCode = code;
      for (const w of exitWaiters.splice(0)) w(code);
    });
  });

  const screen = (): string[] => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < term.rows; i++) lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines;
  };
  // xterm parses asynchronously: flush pending writes before reading the screen.
  const flushed = () => new Promise<void>((resolve) => term.write('', resolve));
  /** Flushes; true when the screen now shows whole frames only (nothing arrived meanwhile, no frame open). */
  const wholeFrames = async () => {
    const before = size;
    await flushed();
    return size === before && !inFrame;
  };
  const tick = () => new Promise((r) => setTimeout(r, 25));

  const app: PtyApp = {
    pid: () => child.pid,
    raw: () => Buffer.concat(chunks),
    mark: () => size,
    rawSince: (from) => Buffer.concat(chunks).subarray(from),
    screen,
    screenText: () => screen().join('\n'),
    terminal: () => term,
    inverseRows: () => {
      const buffer = term.buffer.active;
      const cell = buffer.getNullCell();
      const out: number[] = [];
      for (let i = 0; i < term.rows; i++) {
        const line = buffer.getLine(buffer.viewportY + i);
        for (let x = 0; line && x < term.cols; x++) {
          if (line.getCell(x, cell)?.isInverse()) {
            out.push(i);
            break;
          }
        }
      }
      return out;
    },
    write: (keys) => {
      lastWriteAt = Date.now();
      child.write(keys);
    },
    resize: (c, r) => {
      child.resize(c, r);
      term.resize(c, r);
    },
    async settle(quietMs = 100, timeoutMs = SCREEN_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      const quiet = () => Date.now() - Math.max(lastOutputAt, lastWriteAt) >= quietMs;
      for (;;) {
        while (!quiet()) {
          if (exitCode !== undefined) return;
          if (Date.now() > deadline) throw new Error(`the program never went quiet for ${quietMs} ms`);
          await tick();
        }
        // Timers run before I/O in a turn of the event loop: after this process was busy (a loaded CI
        // machine, a big xterm parse), output can be waiting unread while the clock says "quiet", and
        // the screen would be read mid-frame. setImmediate runs after the I/O poll: look again then.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (quiet() && (await wholeFrames())) break;
        if (exitCode !== undefined) return;
        if (Date.now() > deadline) throw new Error(`the program never went quiet for ${quietMs} ms`);
        await tick();
      }
    },
    async press(keys, expect, timeoutMs = SCREEN_TIMEOUT_MS) {
      await app.settle();
      app.write(keys);
      return expect === undefined ? app.screenText() : app.waitForScreen(expect, timeoutMs);
    },
    async waitForScreen(match, timeoutMs = SCREEN_TIMEOUT_MS) {
      const test = matcher(match);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const whole = await wholeFrames();
        const text = screen().join('\n');
        if (whole && test(text)) return text;
        if (exitCode !== undefined)
          throw new Error(`program exited (${exitCode}) before the screen matched ${describeMatch(match)}:\n${text}`);
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${describeMatch(match)}; screen was:\n${text}`);
        await tick();
      }
    },
    exited(timeoutMs = SCREEN_TIMEOUT_MS) {
      if (exitCode !== undefined) return flushed().then(() => exitCode!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`program did not exit within ${timeoutMs} ms:\n${app.screenText()}`)),
          timeoutMs,
        );
        exitWaiters.push((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    },
    // The terminal is left readable (screen, raw) after a kill, for failure messages.
    kill: () => {
      if (exitCode === undefined) child.kill('SIGKILL');
    },
  };
  return app;
}
