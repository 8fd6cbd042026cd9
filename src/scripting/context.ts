/**
 * What every scripting command needs: the settings (config file < env < flags), a client for the right
 * service, the saved sessions, and the address to work on.
 */
import { createApi } from '../client/tempmail/tempmail-client';
import { refusedBeforeExpiry } from '../client/api-error';
import type { ApiOptions, TempMailApi } from '../client/client-types';
import { loadSettings, type Settings } from '../state/app-config';
import { appPaths } from '../state/paths';
import { displayBaseUrl } from '../state/base-url';
import { normalizeBaseUrl, openSavedSessions, type SavedSession, type SavedSessionStore } from '../state/saved-sessions';
import { parseZoneOffset } from '../platform/time';
import { str, type Parsed, show } from './args';
import { ScriptError, UsageError, type ScriptIo } from './io';

// The app can run a service of its own; a script needs one that outlives it: say how to get one.
export const NO_SERVICE =
  'no service configured: pass --base-url or set TEMPMAIL_BASE_URL (`tempmail-tui serve` runs one and prints its URL)';

export interface Context {
  io: ScriptIo;
  settings: Settings;
  sessions: SavedSessionStore;
  now: () => Date;
  /** A client for `baseUrl` (the configured one when omitted); a usage error when none is configured. */
  api(baseUrl?: string, tuning?: Pick<ApiOptions, 'timeoutMs' | 'retries'>): TempMailApi;
  /** Writes a message line to stderr unless --quiet. */
  info(line: string): void;
}

/** Loads settings from flags/env/file and opens the saved sessions. ConfigError propagates (exit 2). */
export function makeContext(io: ScriptIo, parsed: Parsed): Context {
  const paths = appPaths(io.env);
  const settings = loadSettings({
    env: io.env,
    paths,
    flags: {
      baseUrl: str(parsed, 'base-url'),
      serverTz: str(parsed, 'server-tz'),
      postEncoding: str(parsed, 'post-encoding'),
    },
  });
  const now = io.now ?? (() => new Date());
  const quiet = parsed.values.quiet === true;
  return {
    io,
    settings,
    sessions: openSavedSessions({ dir: paths.state, clock: now }),
    now,
    api(baseUrl = settings.baseUrl, tuning = {}) {
      if (baseUrl === undefined) throw new UsageError(NO_SERVICE);
      return createApi({
        ...tuning,
        baseUrl,
        postEncoding: settings.postEncoding,
        serverOffsetMinutes: parseZoneOffset(settings.serverTz, now()) ?? 0,
      });
    },
    info(line) {
      if (!quiet) io.stderr.write(`${line}\n`);
    },
  };
}

/**
 * The saved address to work on: `--address` when given, else the most recently created live one. Only
 * addresses of the configured service count when one is configured; otherwise each saved address
 * carries its own service URL, so `wait` needs no --base-url after `new --base-url ...`.
 */
export function pickSession(ctx: Context, address: string | undefined): SavedSession {
  const all = ctx.sessions.listLive(ctx.now(), ctx.settings.baseUrl);
  // Addresses the app made on its in-process local service are saved under "local:<data dir>": that
  // service lives only inside the app, at a port nobody saved, so a script cannot reach them.
  const live = all.filter((s) => /^https?:\/\//i.test(s.baseUrl));
  const where = ctx.settings.baseUrl ? ` for ${displayBaseUrl(normalizeBaseUrl(ctx.settings.baseUrl))}` : '';
  if (address === undefined) {
    const current = live[0];
    if (!current) throw new ScriptError(`no saved address${where}: create one with \`tempmail-tui new\``);
    return current;
  }
  const wanted = address.trim().toLowerCase();
  const found = live.find((s) => s.email.toLowerCase() === wanted);
  if (!found && all.some((s) => s.email.toLowerCase() === wanted)) {
    throw new ScriptError(`${show(address)} belongs to the app's built-in local service, which only runs inside the app`);
  }
  if (!found) {
    throw new ScriptError(`${show(address)} is not a saved live address${where}; see \`tempmail-tui new\``);
  }
  return found;
}

/**
 * Runs a call on a saved address. The service answering "unknown token" before the address expires
 * (its data wiped, or another service at that URL) becomes a clear message, and the address is marked
 * refused in the saved list, as the app does (the app's picker then lists it last); an answer clears it.
 */
export async function onSaved<T>(ctx: Context, session: SavedSession, call: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await call();
  } catch (error) {
    throw refusal(ctx, session, error) ?? error;
  }
  accepted(ctx, session);
  return result;
}

/** The service answered for this address: a refusal mark from earlier is cleared (a restored service). */
export function accepted(ctx: Context, session: SavedSession): void {
  if (!session.refusedAt) return;
  try {
    ctx.sessions.markRefused(session.email, session.baseUrl, null);
    delete session.refusedAt;
  } catch {
    // Only a note in the saved list; the command's own result matters more.
  }
}

/** The ScriptError for an address the service refused, or null when `error` is something else. */
export function refusal(ctx: Context, session: SavedSession, error: unknown): ScriptError | null {
  if (!refusedBeforeExpiry(error, session.expiresAt.getTime(), ctx.now().getTime())) return null;
  try {
    ctx.sessions.markRefused(session.email, session.baseUrl, ctx.now());
  } catch {
    // Only a note in the saved list: the message below matters more than recording it.
  }
  return new ScriptError(
    `the service no longer knows ${show(session.email)} (its data was reset, or another service answers at ${displayBaseUrl(session.baseUrl)}); \`tempmail-tui new\` makes another address`,
  );
}
