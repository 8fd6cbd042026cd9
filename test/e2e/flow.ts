/**
 * The end-to-end setting shared by the pty tests: the built `serve` as a child
 * process (loopback, ports 0, temp data dir), the built app in a pseudo-terminal pointed at it with its
 * own temp home (saved state and config never touch the real ones), and the steps every flow repeats.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { KEYS, spawnApp, type PtyApp } from './pty-harness';

export interface E2E {
  serve: ServeReady;
  app: PtyApp;
  /** TEMPMAIL_TUI_HOME of the app. */
  home: string;
  /** Stops the app and the service and removes the temp dirs. Safe to call twice. */
  close(): Promise<void>;
}

export interface E2EOptions {
  cols?: number;
  rows?: number;
  /** Extra app flags (after `--base-url`). */
  args?: string[];
  /** Extra app environment; `undefined` removes a variable. */
  env?: NodeJS.ProcessEnv;
  /** Extra `serve` flags. */
  serveArgs?: string[];
}

/** Environment variables of the outer shell that would change what the app does. */
export function neutralEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of Object.keys(process.env)) {
    if (
      key.startsWith('TEMPMAIL_') ||
      key.startsWith('XDG_') ||
      key === 'NO_COLOR' ||
      key === 'FORCE_COLOR' ||
      key === 'TMUX'
    ) {
      env[key] = undefined;
    }
  }
  return env;
}

/** Starts `serve` and the app against it; the app shows the picker (or whatever it shows first). */
export async function startE2E(options: E2EOptions = {}): Promise<E2E> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tempmail-e2e-data-'));
  const home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-home-'));
  let serve: ServeReady | undefined;
  let app: PtyApp | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      app?.kill();
      if (serve) await stopServe(serve);
      // An app stopped by a signal it handles writes Node's compile cache into its home as it exits:
      // removing the home meanwhile fails with ENOTEMPTY, so the removal is tried again for a while.
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
      await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    })());
  try {
    serve = await startServeProcess(
      ['--host', '127.0.0.1', '--data-dir', dataDir, ...(options.serveArgs ?? [])],
      neutralEnv(),
    );
    app = spawnApp({
      args: ['--base-url', serve.baseUrl, ...(options.args ?? [])],
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, ...options.env },
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { serve, app, home, close };
}

/** The picker lists the service's domains. */
export const isPicker = (s: string) => /Random address on \S+/.test(s);
/** The inbox: the footer offers opening and quitting. */
export const isInbox = (s: string) => /Enter open/.test(s) && /q quit/.test(s) && !isConfirm(s);
/** The viewer: header lines of a message and the way back. */
export const isViewer = (s: string) => /^From: /m.test(s) && /Esc back/.test(s) && !isConfirm(s);
/** A yes/no question on the status line (answers spelled out, or "(y/n)" when the line is tight). */
export const isConfirm = (s: string) => /y = yes, any other key = no|\(y\/n\) *$/m.test(s);
/** The first row: the address and its countdown. */
export const headerRow = (app: PtyApp) => app.screen()[0] ?? '';

const ADDRESS = /([a-z0-9._+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+)/i;

/**
 * Picks the first choice of the picker (a random address on the service's first domain), waits for the
 * inbox and returns the address read off the screen's header row.
 */
export async function pickFirstDomain(app: PtyApp, firstDomain?: string): Promise<string> {
  const picker = await app.waitForScreen(isPicker);
  const firstChoice = /Random address on (\S+)/.exec(picker)?.[1];
  if (firstDomain !== undefined && firstChoice !== firstDomain) {
    throw new Error(`the picker's first choice is not the first domain (${firstDomain}):\n${picker}`);
  }
  await app.press(KEYS.ENTER, (s) => isInbox(s) && /expires in/.test(s));
  return addressOnScreen(app);
}

/** The address in the header row of a session screen. */
export function addressOnScreen(app: PtyApp): string {
  const address = ADDRESS.exec(headerRow(app))?.[1];
  if (!address) throw new Error(`no address in the header row:\n${app.screenText()}`);
  return address;
}

/** The text of the selected (inverse-video) row, or '' when none is. */
export function selectedRow(app: PtyApp): string {
  const row = app.inverseRows()[0];
  return row === undefined ? '' : (app.screen()[row] ?? '');
}

/** Rows of the screen that contain `text`. */
export function rowsWith(app: PtyApp, text: string): number[] {
  return app
    .screen()
    .map((row, i) => (row.includes(text) ? i : -1))
    .filter((i) => i >= 0);
}
