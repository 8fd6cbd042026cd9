/**
 * Opening a link in the user's browser, only where a browser can show up: a graphical session (DISPLAY or
 * WAYLAND_DISPLAY, xdg-open), macOS (open) or WSL (wslview). Links come from strangers' mail, so the URL is
 * checked first (http or https, parseable, no control, space or invisible format characters) and handed
 * to the opener as one argument of a process started without a shell and detached: nothing in it can
 * become a command, an option or a second argument, and the app never waits on the browser.
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

// node:child_process is loaded on the first link opened, not with the app (before its first frame).
const load = createRequire(import.meta.url);
const childProcess = (): typeof import('node:child_process') =>
  load('node:child_process') as typeof import('node:child_process');

// C0, DEL, C1, any whitespace, and format characters (bidi overrides, zero-width) that could disguise a URL.
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\s\p{Cf}]/u;
const MAX_URL = 8192;

/** The URL to open (normalized by the URL parser), or null when it must not be opened. */
export function checkLink(url: unknown): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL || FORBIDDEN.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (!parsed.hostname) return null;
  // href percent-encodes what needs it; checked again in case the parser produced something odd.
  return FORBIDDEN.test(parsed.href) ? null : parsed.href;
}

export interface Opener {
  /** "xdg-open", "open" or "wslview", for the status line. */
  name: string;
  /** Absolute path found on PATH. */
  path: string;
}

/** The browser opener of this session, or null where no browser can be shown (a plain SSH session). */
export function findOpener(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Opener | null {
  const names: string[] = [];
  if (platform === 'darwin') names.push('open');
  else if (env.WSL_DISTRO_NAME || env.WSL_INTEROP) names.push('wslview');
  if (platform !== 'darwin' && platform !== 'win32' && (env.DISPLAY || env.WAYLAND_DISPLAY)) names.push('xdg-open');
  for (const name of names) {
    const path = which(name, env);
    if (path) return { name, path };
  }
  return null;
}

export type OpenResult =
  | { opened: true; opener: string }
  | { opened: false; reason: 'unsafe' | 'no-display' | 'failed'; detail?: string };

export interface OpenOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** Opens `url` in a browser when it is safe and there is a display. Never throws. */
export async function openInBrowser(url: string, options: OpenOptions = {}): Promise<OpenResult> {
  const href = checkLink(url);
  if (href === null) return { opened: false, reason: 'unsafe' };
  const env = options.env ?? process.env;
  let opener: Opener | null;
  try {
    opener = findOpener(env, options.platform);
  } catch {
    opener = null;
  }
  if (!opener) return { opened: false, reason: 'no-display' };
  const found = opener;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      // No shell, own process group (a Ctrl+C in the app does not reach the browser), no inherited stdio
      // (a chatty browser must not scribble over the app's screen).
      child = childProcess().spawn(found.path, [href], { env, detached: true, stdio: 'ignore', shell: false });
    } catch {
      resolve({ opened: false, reason: 'failed', detail: `${found.name} could not start` });
      return;
    }
    child.once('error', () => resolve({ opened: false, reason: 'failed', detail: `${found.name} could not start` }));
    child.once('spawn', () => {
      child.unref();
      resolve({ opened: true, opener: found.name });
    });
  });
}

function which(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this PATH entry.
    }
  }
  return null;
}
