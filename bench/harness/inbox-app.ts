/**
 * The app opened on an inbox that already holds mail, as a returning user gets there: the address is in
 * the app's saved sessions (written by the app's own module), the picker offers "Resume <address>"
 * first, Enter opens it, and the list appears.
 */
import { join } from 'node:path';
import { openSavedSessions } from '../../src/state/saved-sessions';
import type { SeededInbox } from '../seed/seed-store';
import { PtyApp } from './pty-app';
import { tempDir } from './temp';

export interface InboxAppOptions {
  baseUrl: string;
  inbox: SeededInbox;
  /** The list is loaded when the screen passes this. */
  loaded: (screen: string) => boolean;
  cols?: number;
  rows?: number;
  /** More app flags (after --base-url). */
  args?: string[];
  nodeArgs?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** The inbox screen: the footer offers opening and quitting. */
export const isInbox = (s: string) => /Enter open/.test(s) && /q quit/.test(s);

/** Starts the app in its own temp home and opens `inbox` from the picker. */
export async function openInboxApp(options: InboxAppOptions): Promise<PtyApp> {
  const home = tempDir('tempmail-bench-home-');
  const { email, token, expiresAt } = options.inbox;
  openSavedSessions({ dir: join(home, 'state') }).save(
    { email, token, expiresAt: new Date(expiresAt) },
    options.baseUrl,
  );
  const app = new PtyApp({
    args: ['--base-url', options.baseUrl, ...(options.args ?? [])],
    nodeArgs: options.nodeArgs,
    env: { TEMPMAIL_TUI_HOME: home, ...options.env },
    cols: options.cols,
    rows: options.rows,
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  try {
    const picker = await app.until((s) => s.includes(`Resume ${email}`), timeoutMs, `"Resume ${email}" in the picker`);
    const selected = /^> .*Resume /m.test(picker);
    if (!selected) throw new Error(`the saved address is not the picker's first choice:\n${picker}`);
    await app.settle();
    app.write('\r');
    await app.until((s) => isInbox(s) && options.loaded(s), timeoutMs, 'the inbox with its mail listed');
    return app;
  } catch (error) {
    await app.stop();
    throw error;
  }
}

/** Presses `key`; resolves with ms from the write to the end of the frame that moved the selection. */
export async function keyToFrame(app: PtyApp, key: string): Promise<number> {
  const before = await app.selection();
  const t0 = app.write(key);
  const frame = await app.nextFrame(
    (f) => f.at > t0 && f.selected !== before,
    10_000,
    `the selection moved by ${JSON.stringify(key)}`,
  );
  return frame.at - t0;
}
