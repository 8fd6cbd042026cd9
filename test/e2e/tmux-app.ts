/**
 * The built program in a real tmux (a server on a private socket, one window of a fixed size): what a
 * user of tmux sees, read with capture-pane. tmux measures text itself (the C library's wcwidth, tmux
 * 3.3's joiner rule), so it shows what the app's cell widths come to in a terminal that is not xterm.js.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../harness/wait';
import { CLI, SCREEN_TIMEOUT_MS, type ScreenMatch } from './pty-harness';

const TMUX_BIN = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();

export interface TmuxApp {
  /** The visible rows, trailing spaces trimmed. */
  screen(): string[];
  /** The visible rows with their colours and attributes (SGR sequences as tmux writes them). */
  styled(): string[];
  /** How many of the visible rows continue the row above because the terminal wrapped it. */
  wrappedRows(): number;
  /** Bytes the program wrote so far (tmux's pipe-pane), as text. */
  output(): string;
  /** Keys, in tmux's send-keys names (`Enter`, `C-l`, `j`). */
  keys(...keys: string[]): void;
  /** Waits until the screen matches and has not changed for a moment; returns its text. */
  waitForScreen(match: ScreenMatch, timeoutMs?: number): Promise<string>;
  /**
   * Stops the program and the tmux server, waits until the program has exited (it writes Node's compile
   * cache into its home as it exits: a home removed meanwhile fails with ENOTEMPTY), removes the socket.
   */
  close(): Promise<void>;
}

/** Starts `node dist/cli.js ...args` in a tmux window of `cols` x `rows`, with `env` added to ours. */
export function tmuxApp(args: string[], env: NodeJS.ProcessEnv, cols = 80, rows = 24): TmuxApp {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-tmux-app-'));
  const socket = join(dir, 'sock');
  const full: NodeJS.ProcessEnv = { ...process.env, ...env, LC_ALL: 'C.UTF-8' };
  // Ink prints only the last frame under CI; the app under test must draw as it does for a user.
  delete full.CI;
  delete full.GITHUB_ACTIONS;
  delete full.TMUX;
  const tmux = (...a: string[]) => execFileSync(TMUX_BIN, ['-S', socket, ...a], { encoding: 'utf8', env: full });
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', String(cols), '-y', String(rows), '-s', 'app', command);
  // The window keeps the size asked for, whatever clients attach (none does).
  tmux('set-option', '-g', 'window-size', 'manual');
  // What the program writes, as tmux receives it.
  const log = join(dir, 'output');
  tmux('pipe-pane', '-o', '-t', 'app', `cat >> '${log}'`);

  const screen = () =>
    tmux('capture-pane', '-p', '-t', 'app')
      .split('\n')
      .slice(0, rows)
      .map((r) => r.trimEnd());
  const app: TmuxApp = {
    screen,
    styled: () => tmux('capture-pane', '-p', '-e', '-t', 'app').split('\n').slice(0, rows),
    // -J joins a wrapped row to the one it continues: each join is one row fewer.
    wrappedRows: () => rows - tmux('capture-pane', '-p', '-J', '-t', 'app').split('\n').slice(0, -1).length,
    output: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
    keys: (...keys) => void tmux('send-keys', '-t', 'app', ...keys),
    async waitForScreen(match, timeoutMs = SCREEN_TIMEOUT_MS) {
      const test =
        typeof match === 'function'
          ? match
          : typeof match === 'string'
            ? (s: string) => s.includes(match)
            : (s: string) => match.test(s);
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        const text = screen().join('\n');
        // Two reads alike, 50 ms apart: not a frame half drawn.
        if (text === last && test(text)) return text;
        last = text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for the tmux screen; it was:\n${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: async () => {
      let pid: number | undefined;
      try {
        pid = Number(tmux('display-message', '-p', '-t', 'app', '#{pane_pid}').trim()) || undefined;
        tmux('kill-server');
      } catch {
        // Already gone.
      }
      const running = () => {
        try {
          process.kill(pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (pid !== undefined)
        await waitFor(() => !running(), { timeoutMs: 10_000, message: 'the program in tmux to exit' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return app;
}
