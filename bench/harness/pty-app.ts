/**
 * The built app (`node dist/cli.js`) in a real pseudo-terminal, as a user runs it, read by a headless
 * xterm. Ink wraps every frame in synchronized-output marks (ESC[?2026h ... ESC[?2026l): a frame is
 * completely written when its end mark has arrived, and its time is when this process read the chunk
 * holding that mark (taken before any parsing, so our own xterm work does not count against the app).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { IPty } from '@lydell/node-pty';
import type { Terminal as XTerm } from '@xterm/headless';

const require = createRequire(import.meta.url);
// @xterm/headless names an ESM build it does not ship; its CommonJS main is the one that exists.
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');

/** The program under measurement: dist/cli.js, or another build named by TEMPMAIL_BENCH_CLI (an A/B run). */
export const CLI = process.env.TEMPMAIL_BENCH_CLI || fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * The Node that runs what is measured (the app, `serve`, the peers and bare-Node baselines): the bench's
 * own, or another named by TEMPMAIL_BENCH_NODE (`npm run bench -- --node PATH` sets it, bench/run.ts).
 */
export function measuredNode(): string {
  return process.env.TEMPMAIL_BENCH_NODE || process.execPath;
}

const END_MARK = Buffer.from('\x1b[?2026l');

/** The screen right after a frame's end mark was parsed. */
export interface Frame {
  /** performance.now() when the chunk holding the end mark was read from the pty. */
  at: number;
  /** 1 for the program's first frame. */
  index: number;
  text: string;
  /** The first row drawn in inverse video (how lists show their selection), with its row number. */
  selected: string;
}

export type FrameTest = (frame: Frame) => boolean;

export interface AppOptions {
  args?: string[];
  /** Run `node <argv>` instead of the app (the bare-Node baseline). */
  argv?: string[];
  /** Node flags before the program (the stall probe's `--import`). */
  nodeArgs?: string[];
  /** Added to a neutral environment (no CI, no TEMPMAIL_*, no XDG_*). */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
}

/**
 * The environment of the processes we measure: the outer shell's settings for the app are removed, and
 * CI too (under CI, Ink draws only the last frame and without synchronized-output marks).
 */
export function neutralEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k === 'GITHUB_ACTIONS') continue;
    if (k === 'NODE_OPTIONS' || k === 'TMUX') continue;
    if (k.startsWith('TEMPMAIL_') || k.startsWith('XDG_') || k === 'NO_COLOR' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  env.TERM = 'xterm-256color';
  return { ...env, ...extra };
}

interface Waiter {
  test: FrameTest;
  resolve: (frame: Frame) => void;
}

/** A running app in a pty. */
export class PtyApp {
  readonly pid: number;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
  readonly exited: Promise<number>;
  /** performance.now() when the exit was seen. */
  exitedAt: number | undefined;
  private readonly child: IPty;
  private readonly term: XTerm;
  private byteCount = 0;
  private lastOutputAt = 0;
  private frameCount = 0;
  private tail = Buffer.alloc(0);
  private waiters: Waiter[] = [];
  private exitCode: number | undefined;

  constructor(options: AppOptions = {}) {
    if (!options.argv && !existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    const cols = options.cols ?? 80;
    const rows = options.rows ?? 24;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.spawnedAt = performance.now();
    const argv = options.argv ?? [...(options.nodeArgs ?? []), CLI, ...(options.args ?? [])];
    this.child = pty.spawn(measuredNode(), argv, {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: process.cwd(),
      env: neutralEnv(options.env),
      encoding: null,
    });
    this.pid = this.child.pid;
    // The terminal answers what the program asks (device attributes, modes), as a real one does.
    this.term.onData((reply) => {
      if (this.exitCode === undefined) this.child.write(reply);
    });
    this.child.onData((data: string | Buffer) =>
      this.onData(performance.now(), typeof data === 'string' ? Buffer.from(data) : data),
    );
    this.exited = new Promise((resolve) =>
      this.child.onExit(({ exitCode }) => {
        this.exitedAt = performance.now();
        this.exitCode = exitCode;
        resolve(exitCode);
      }),
    );
  }

  /** Bytes the app has written to its terminal so far. */
  bytes(): number {
    return this.byteCount;
  }

  /** Sends keys; returns performance.now() taken just before the write. */
  write(keys: string): number {
    const at = performance.now();
    this.child.write(keys);
    return at;
  }

  /** The screen as it stands (after everything read so far is parsed). */
  async screen(): Promise<string> {
    await new Promise<void>((resolve) => this.term.write('', resolve));
    return this.rows().join('\n');
  }

  /** The selected (inverse) row as it stands, "row:text", or '' when none is. */
  async selection(): Promise<string> {
    await this.screen();
    return this.selectedRow();
  }

  /** The first frame that ends after this call and passes `test`. */
  nextFrame(test: FrameTest, timeoutMs: number, what: string): Promise<Frame> {
    return this.watch(test, timeoutMs, what).frame;
  }

  /** Waits until the screen (now, or after a later frame) satisfies `test`; for setting up, not timing. */
  async until(test: (text: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    const watch = this.watch((f) => test(f.text), timeoutMs, what);
    const now = await this.screen();
    if (!test(now)) return (await watch.frame).text;
    watch.cancel();
    return now;
  }

  private watch(test: FrameTest, timeoutMs: number, what: string): { frame: Promise<Frame>; cancel(): void } {
    let waiter: Waiter | undefined;
    let timer: NodeJS.Timeout | undefined;
    const frame = new Promise<Frame>((resolve, reject) => {
      waiter = {
        test,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      };
      timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        void this.screen().then((screen) =>
          reject(
            new Error(
              `no frame with ${what} within ${timeoutMs} ms (exit ${this.exitCode ?? 'none'}); screen:\n${screen}`,
            ),
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
    const cancel = () => {
      clearTimeout(timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
    };
    return { frame, cancel };
  }

  /**
   * Resolves once no output has arrived for `quietMs`: the app has drawn what it was going to and has
   * subscribed the new screen's keys (Ink does that after drawing; a key sent sooner can be lost).
   */
  async settle(quietMs = 150, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const wait = this.lastOutputAt + quietMs - performance.now();
      if (wait <= 0) {
        // Timers run before I/O in a turn: look again after the I/O poll before calling it quiet.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (performance.now() - this.lastOutputAt >= quietMs) return;
      } else if (performance.now() > deadline) {
        throw new Error(`the app never went quiet for ${quietMs} ms`);
      } else {
        await new Promise<void>((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** SIGTERM (the app quits as on `q`), then SIGKILL if it has not gone within 3 s. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.child.kill('SIGTERM');
    const gone = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 3000)),
    ]);
    if (!gone) this.child.kill('SIGKILL');
  }

  private rows(): string[] {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < this.term.rows; i++)
      lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return lines;
  }

  private selectedRow(): string {
    const buffer = this.term.buffer.active;
    const cell = buffer.getNullCell();
    for (let y = 0; y < this.term.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      for (let x = 0; line && x < this.term.cols; x++) {
        if (line.getCell(x, cell)?.isInverse()) return `${y}:${line.translateToString(true)}`;
      }
    }
    return '';
  }

  private onData(at: number, data: Buffer): void {
    this.byteCount += data.length;
    this.lastOutputAt = at;
    // An end mark may straddle two reads: search the last bytes of the previous read too.
    const hay = Buffer.concat([this.tail, data]);
    const carried = this.tail.length;
    this.tail = hay.subarray(Math.max(0, hay.length - (END_MARK.length - 1)));
    let from = 0;
    for (let i = hay.indexOf(END_MARK); i >= 0; i = hay.indexOf(END_MARK, i + 1)) {
      const end = i + END_MARK.length - carried; // offset in `data` just after the mark
      this.term.write(data.subarray(from, end), () => this.frameEnded(at));
      from = end;
    }
    if (from < data.length) this.term.write(data.subarray(from));
  }

  private frameEnded(at: number): void {
    this.frameCount += 1;
    if (this.waiters.length === 0) return;
    const frame: Frame = { at, index: this.frameCount, text: this.rows().join('\n'), selected: this.selectedRow() };
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.test(frame)) w.resolve(frame);
      else this.waiters.push(w);
    }
  }
}
