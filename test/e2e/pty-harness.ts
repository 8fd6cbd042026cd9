/**
 * Drives the built program (dist/cli.js) in a real pseudo-terminal. Output goes to a headless xterm
 * (what a user would see) and is also kept as raw bytes (what the program actually wrote), so tests can
 * assert both on the screen and on the absence of escape sequences the app did not mean to send.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { IPty } from 'node-pty';
import type { Terminal as XTerm } from '@xterm/headless';

const require = createRequire(import.meta.url);
// @xterm/headless names an ESM build it does not ship; its CommonJS main is the one that exists.
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const pty = require('node-pty') as typeof import('node-pty');

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

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

export interface PtyApp {
  /** Bytes the program wrote, as received. */
  raw(): Buffer;
  /** Visible screen, one string per row, trailing spaces trimmed. */
  screen(): string[];
  screenText(): string;
  write(keys: string): void;
  resize(cols: number, rows: number): void;
  /** Waits until the screen matches, then returns the screen text. */
  waitForScreen(match: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code. */
  exited(timeoutMs?: number): Promise<number>;
  kill(): void;
}

export interface SpawnOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  cwd?: string;
}

/** Starts `node dist/cli.js ...args` in a pty. CI is removed from its env: Ink prints only the last frame under CI. */
export function spawnApp(options: SpawnOptions = {}): PtyApp {
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
  const chunks: Buffer[] = [];
  const child: IPty = pty.spawn(process.execPath, [CLI, ...(options.args ?? [])], {
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
    term.write(buf);
  });
  child.onExit(({ exitCode: code }) => {
    exitCode = code;
    for (const w of exitWaiters.splice(0)) w(code);
  });

  const screen = (): string[] => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < term.rows; i++) lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines;
  };
  // xterm parses asynchronously: flush pending writes before reading the screen.
  const flushed = () => new Promise<void>((resolve) => term.write('', resolve));

  return {
    raw: () => Buffer.concat(chunks),
    screen,
    screenText: () => screen().join('\n'),
    write: (keys) => child.write(keys),
    resize: (c, r) => {
      child.resize(c, r);
      term.resize(c, r);
    },
    async waitForScreen(match, timeoutMs = 10_000) {
      const test =
        typeof match === 'function' ? match : typeof match === 'string' ? (s: string) => s.includes(match) : (s: string) => match.test(s);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await flushed();
        const text = screen().join('\n');
        if (test(text)) return text;
        if (exitCode !== undefined) throw new Error(`program exited (${exitCode}) before the screen matched ${String(match)}:\n${text}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(match)}; screen was:\n${text}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exited(timeoutMs = 10_000) {
      if (exitCode !== undefined) return Promise.resolve(exitCode);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('program did not exit in time')), timeoutMs);
        exitWaiters.push((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    },
    kill: () => {
      if (exitCode === undefined) child.kill('SIGKILL');
    },
  };
}
