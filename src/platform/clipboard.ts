/**
 * Copying that works over SSH: the OSC 52 escape asks the user's own terminal to set its clipboard, so
 * it works from a remote shell, and through tmux or GNU screen when wrapped for them. Nothing answers
 * it, so it is reported as sent, never as copied. Inside tmux the text also goes to tmux's own paste
 * buffer (tmux drops an application's OSC 52 unless `set-clipboard` is on), and a local clipboard tool
 * is tried where one exists (it covers terminals that ignore OSC 52). The copied text goes to tmux and
 * the tools on stdin, never in argv, where `ps` would show it.
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

// node:child_process is loaded on the first copy to a clipboard tool, not with the app (before its first frame).
const load = createRequire(import.meta.url);
const childProcess = (): typeof import('node:child_process') =>
  load('node:child_process') as typeof import('node:child_process');

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;
/**
 * Largest base64 payload we send. Terminals cap OSC 52 (xterm and others around 100 KB, some less) and
 * drop longer ones silently, so a copy that cannot work is reported rather than pretended.
 */
export const OSC52_MAX_BASE64 = 100_000;
// GNU screen passes at most 768 bytes per DCS string through; vim-oscyank and others chunk by 76.
const SCREEN_CHUNK = 76;
const TOOL_TIMEOUT_MS = 2000;

export interface Osc52Options {
  /** Also send it wrapped for tmux passthrough (ESC P tmux; ... ESC \, inner ESCs doubled). */
  tmux?: boolean;
  /** Wrap for GNU screen (chunked DCS strings). Ignored when `tmux` is set. */
  screen?: boolean;
  /** End with ST (ESC \) instead of BEL. BEL is the most widely understood. */
  st?: boolean;
}

/** The OSC 52 sequence that sets the clipboard to `text` (UTF-8). Throws RangeError past OSC52_MAX_BASE64. */
export function osc52(text: string, options: Osc52Options = {}): string {
  const b64 = Buffer.from(text, 'utf8').toString('base64');
  if (b64.length > OSC52_MAX_BASE64) {
    throw new RangeError(`text too long for OSC 52 (${b64.length} base64 bytes, limit ${OSC52_MAX_BASE64})`);
  }
  const end = options.st ? ST : BEL;
  const plain = `${ESC}]52;c;${b64}${end}`;
  if (options.tmux) {
    // Both forms, as tmux is set up either way: its own clipboard handling (`set-clipboard`, on by
    // default as "external") takes the plain sequence and passes it to the outer terminal it knows
    // can take it; passthrough (`allow-passthrough`, off by default since tmux 3.3) forwards a DCS
    // "tmux;" string after undoubling every ESC in it. A terminal given both sets the same text twice.
    return `${plain}${ESC}Ptmux;${plain.replaceAll(ESC, ESC + ESC)}${ST}`;
  }
  if (options.screen) {
    const chunks: string[] = [];
    for (let i = 0; i < b64.length; i += SCREEN_CHUNK) chunks.push(b64.slice(i, i + SCREEN_CHUNK));
    return `${ESC}P${ESC}]52;c;${chunks.join(`${ST}${ESC}P`)}${end}${ST}`;
  }
  return plain;
}

/** Wrapping for the multiplexer this process runs in, from its environment. */
export function osc52OptionsFor(env: NodeJS.ProcessEnv): Osc52Options {
  if (env.TMUX) return { tmux: true };
  if (env.STY) return { screen: true };
  return {};
}

export interface ClipboardTool {
  /** Name for the status line ("xclip"). */
  name: string;
  /** Absolute path found on PATH. */
  path: string;
  args: string[];
}

/**
 * The local clipboard tool to use, or null: wl-copy on Wayland, xclip or xsel with an X display,
 * pbcopy on macOS, clip.exe on WSL, clip on Windows; each only when found on env.PATH.
 */
export function findClipboardTool(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): ClipboardTool | null {
  const candidates: Array<[string, string[]]> = [];
  if (env.WAYLAND_DISPLAY) candidates.push(['wl-copy', []]);
  if (env.DISPLAY) candidates.push(['xclip', ['-selection', 'clipboard']], ['xsel', ['--clipboard', '--input']]);
  if (platform === 'darwin') candidates.push(['pbcopy', []]);
  if (env.WSL_DISTRO_NAME || env.WSL_INTEROP) candidates.push(['clip.exe', []]);
  if (platform === 'win32') candidates.push(['clip.exe', []]);
  for (const [name, args] of candidates) {
    const path = which(name, env, platform);
    if (path) return { name, path, args };
  }
  return null;
}

export interface CopyResult {
  /** True when at least one way was used (OSC 52 written or a tool took the text). */
  ok: boolean;
  /**
   * One line for the status bar, saying only what is known: a tool that took the text "copied" it
   * ("Copied to tmux's buffer", "Copied with xclip");
   * OSC 52 is only "sent to the terminal", which may ignore it (and tmux drops it unless set-clipboard
   * is on). It starts with "Copied" or "Sent" (or "Not copied"), so a caller can name the thing after it.
   */
  message: string;
  osc52: boolean;
  /** The tool that took the text ("tmux" for its paste buffer, "xclip" ...), or null. */
  tool: string | null;
}

export interface CopyOptions {
  /** Writes to the terminal (the app's stdout). */
  write: (s: string) => void;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  timeoutMs?: number;
}

/**
 * Copies `text` by OSC 52, into tmux's paste buffer when inside tmux, and by a local tool when there is
 * one. Never throws; says what happened.
 */
export async function copyToClipboard(text: string, options: CopyOptions): Promise<CopyResult> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? TOOL_TIMEOUT_MS;
  let oscState: 'written' | 'too-long' | 'failed' = 'written';
  try {
    options.write(osc52(text, osc52OptionsFor(env)));
  } catch (error) {
    oscState = error instanceof RangeError ? 'too-long' : 'failed';
  }
  const osc = oscState === 'written';
  const tmux = env.TMUX ? await tmuxBuffer(text, env, platform, timeoutMs) : null;
  const tool = safeFind(env, platform);
  const toolError = tool ? await runTool(tool, text, env, timeoutMs) : 'absent';
  const toolOk = toolError === null;

  const copiedTo = [tmux === null ? '' : "to tmux's buffer", toolOk ? `with ${tool!.name}` : ''].filter(Boolean);
  // What is missing, in a few words: a failed tool, no tool at all, tmux that may drop OSC 52.
  const caveat =
    tool && !toolOk
      ? `${tool.name} failed: ${toolError}`
      : env.TMUX && tmux === null
        ? 'tmux may need set-clipboard on'
        : !tool && !env.TMUX
          ? 'no local clipboard tool'
          : '';
  let message: string;
  if (copiedTo.length > 0) {
    message = `Copied ${copiedTo.join(' and ')}`;
    if (osc) message += '; also sent via OSC 52';
    else message += oscState === 'too-long' ? ' (too long for OSC 52)' : ' (OSC 52 not written)';
  } else if (osc) {
    message = `Sent to the terminal via OSC 52${caveat.startsWith('tmux') ? `; ${caveat}` : caveat ? ` (${caveat})` : ''}`;
  } else {
    const why = oscState === 'too-long' ? 'too long for OSC 52' : 'the terminal could not be written';
    message = `Not copied: ${why} and ${tool ? `${tool.name} failed` : 'no local clipboard tool'}`;
  }
  return { ok: osc || copiedTo.length > 0, message, osc52: osc, tool: toolOk ? tool!.name : tmux };
}

/**
 * Inside tmux, its own paste buffer: `tmux load-buffer -w -` (text on stdin; -w also hands it to the
 * outer terminal's clipboard where tmux can, since tmux 3.2), else `load-buffer -` for an older tmux.
 * "tmux" when the buffer took it, null when there is no tmux command or it failed.
 */
async function tmuxBuffer(
  text: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  timeoutMs: number,
): Promise<string | null> {
  let path: string | null;
  try {
    path = which('tmux', env, platform);
  } catch {
    path = null;
  }
  if (!path) return null;
  for (const args of [
    ['load-buffer', '-w', '-'],
    ['load-buffer', '-'],
  ]) {
    if ((await runTool({ name: 'tmux', path, args }, text, env, timeoutMs)) === null) return 'tmux';
  }
  return null;
}

function safeFind(env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): ClipboardTool | null {
  try {
    return findClipboardTool(env, platform);
  } catch {
    return null;
  }
}

/** Feeds `text` to the tool's stdin; resolves null on exit 0, else a short reason. Never rejects. */
function runTool(tool: ClipboardTool, text: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reason: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reason);
    };
    let child: ChildProcess;
    try {
      // stdout/stderr ignored: xclip and wl-copy fork a child that keeps serving the selection, and a
      // pipe held open by it must not keep us waiting.
      child = childProcess().spawn(tool.path, tool.args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      resolve('could not start');
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish('timed out');
    }, timeoutMs);
    timer.unref?.();
    child.on('error', () => finish('could not start'));
    child.on('exit', (code, signal) => finish(code === 0 ? null : signal ? `killed by ${signal}` : `exit ${code}`));
    // A tool that exits without reading leaves us with EPIPE on stdin; the exit status tells the story.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(text, 'utf8');
  });
}

function which(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | null {
  const pathVar = env.PATH ?? env.Path ?? '';
  const sep = platform === 'win32' ? ';' : delimiter;
  for (const dir of pathVar.split(sep)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, platform === 'win32' ? constants.F_OK : constants.X_OK);
      return candidate;
    } catch {
      // Not here; next PATH entry.
    }
  }
  return null;
}
