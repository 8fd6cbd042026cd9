/**
 * What every scripting command needs: the settings (config file < env < flags), a provider client for
 * the right service, the saved sessions, and the address to work on.
 */
import { refusedBeforeExpiry } from '../client/api-error';
import type { ApiOptions, MailProvider } from '../client/client-types';
import { configuredRef, createProvider, PROVIDER_INFO, type ProviderRef } from '../client/providers';
import { loadSettings, type Settings } from '../state/app-config';
import { rateLimitWords } from '../client/pacing/rate-limit-wait';
import { pacingWords, userProviderOptions } from '../client/provider-options';
import { appPaths } from '../state/paths';
import { displayBaseUrl } from '../state/base-url';
import {
  normalizeBaseUrl,
  openSavedSessions,
  type SavedSession,
  type SavedSessionStore,
} from '../state/saved-sessions';
import { expiryMs } from '../model/mail-types';
import { parseZoneOffset } from '../platform/time';
import { str, type Parsed, show } from './args';
import { ScriptError, UsageError, type ScriptIo } from './io';

// The app can run a service of its own; a script needs one that outlives it: say how to get one.
export const NO_SERVICE =
  'no service configured: pass --provider mailtm, tempmaillol or guerrilla for a public inbox, --provider tempmail for mailtemp.us, or --base-url for another service of the interface (`tempmail-tui serve` runs one and prints its URL)';

/** Per-call tuning a command may ask of its client. */
export type Tuning = Pick<ApiOptions, 'timeoutMs' | 'retries' | 'rateLimitWait' | 'signal' | 'maxResponseBytes'>;

export { configuredRef };

export interface Context {
  io: ScriptIo;
  settings: Settings;
  sessions: SavedSessionStore;
  now: () => Date;
  /**
   * Where the settings say new addresses go; with nothing configured, the app's local service (as the
   * app does), or a usage error where this process may not run it.
   */
  configured(): ProviderRef;
  /** A client for `ref` (the configured one when omitted) at an http(s) URL. */
  provider(ref?: ProviderRef, tuning?: Tuning): MailProvider;
  /** A client for `ref`, the app's local service included (found running, or started: io.openLocal). */
  open(ref?: ProviderRef, tuning?: Tuning): Promise<MailProvider>;
  /** The key the app saves its local service's addresses under: "local:" and the data dir. */
  localKey: string;
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
      provider: str(parsed, 'provider'),
      baseUrl: str(parsed, 'base-url'),
      serverTz: str(parsed, 'server-tz'),
      postEncoding: str(parsed, 'post-encoding'),
    },
  });
  const now = io.now ?? (() => new Date());
  const quiet = parsed.values.quiet === true;
  const info = (line: string) => {
    if (!quiet) io.stderr.write(`${line}\n`);
  };
  // The app's own key for them (tui/shell/app-service.ts startRef), as the store spells it: one store of
  // saved addresses for both.
  const localKey = normalizeBaseUrl(`local:${paths.data}`);
  const configured = (): ProviderRef => {
    const ref = configuredRef(settings);
    if (ref) return ref;
    if (!io.openLocal) throw new UsageError(NO_SERVICE);
    return { provider: 'tempmail', baseUrl: localKey };
  };
  const sessions = io.sessions ?? openSavedSessions({ dir: paths.state, clock: now });
  const provider = (ref = configured(), tuning: Tuning = {}): MailProvider => {
    const name = whereName(ref);
    return createProvider(ref.provider, {
      // Every process of this user keeps the provider's documented rate together, and a 429 is waited
      // out, saying so, before the command gives up.
      ...userProviderOptions(ref, {
        settings,
        state: paths.state,
        sessions,
        onWait: (seconds) => info(rateLimitWords(name, seconds)),
        onPacing: (note) => info(pacingWords(name, note)),
      }),
      ...tuning,
      // The command's end (or its caller's abort) cancels whatever this client still has in flight, and
      // so does a deadline of the caller's (`tuning.signal`: a try of `--provider auto`).
      signal: bothSignals(io.signal, tuning.signal),
      baseUrl: ref.baseUrl,
      postEncoding: settings.postEncoding,
      serverOffsetMinutes: parseZoneOffset(settings.serverTz, now()) ?? 0,
    });
  };
  return {
    io,
    settings,
    sessions,
    now,
    configured,
    provider,
    async open(ref = configured(), tuning = {}) {
      if (normalizeBaseUrl(ref.baseUrl) !== localKey) return provider(ref, tuning);
      if (!io.openLocal) throw new ScriptError(LOCAL_ONLY);
      const local = await io.openLocal();
      // As the app's: not paced, no 429 waits (nobody else's limits apply to it).
      return createProvider('tempmail', {
        ...tuning,
        signal: io.signal,
        baseUrl: local.httpUrl,
        postEncoding: settings.postEncoding,
      });
    },
    localKey,
    info,
  };
}

const LOCAL_ONLY =
  "this address belongs to the app's local service, which only runs on the machine of the app that made it";

/** "mail.tm", "Guerrilla Mail", or "the service" (a tempmail service). */
function whereName(ref: ProviderRef): string {
  return ref.provider === 'tempmail' ? 'The service' : PROVIDER_INFO[ref.provider].label;
}

/** "mail.tm", "Guerrilla Mail", a tempmail service's URL (without user:password@), or the local service. */
export function whereLabel(ref: ProviderRef): string {
  if (ref.baseUrl.startsWith('local:')) return 'the local service';
  return ref.provider === 'tempmail'
    ? displayBaseUrl(ref.baseUrl)
    : `${PROVIDER_INFO[ref.provider].label} (${displayBaseUrl(ref.baseUrl)})`;
}

/**
 * Where mail for an address of the local service goes, for stderr: while another process runs it, for
 * as long as it does; while this command runs it, only meanwhile (the app or a `wait` runs it later).
 */
export async function localTarget(ctx: Context, email: string): Promise<string> {
  const local = await ctx.io.openLocal!();
  const smtp = `SMTP ${local.smtpHost}:${local.smtpPort}`;
  if (local.sharedPid !== undefined) return `Local service (pid ${local.sharedPid}): send mail to ${email} via ${smtp}`;
  return `Local service (this command's own, data in ${ctx.localKey.slice('local:'.length).replace(/\/$/, '')}): mail to ${email} arrives via ${smtp} while it runs; later, while the app or a \`tempmail-tui wait\` runs it (SMTP ${local.smtpHost}:2525, or the next free port)`;
}

/** The provider and base URL a saved address lives on. */
export const refOf = (s: SavedSession): ProviderRef => ({ provider: s.provider, baseUrl: s.baseUrl });

/**
 * The saved address to work on: `--address` when given, else the most recently created live one. Only
 * addresses of the configured provider and service count when one is configured; otherwise each saved
 * address carries its own, so `wait` needs no --provider or --base-url after `new --provider mailtm`.
 */
export function pickSession(ctx: Context, address: string | undefined): SavedSession {
  // With `auto`, as with nothing configured, each saved address carries where it lives.
  const ref = ctx.settings.provider === 'auto' ? undefined : configuredRef(ctx.settings);
  const all = ref ? ctx.sessions.listLive(ctx.now(), ref.baseUrl, ref.provider) : ctx.sessions.listLive(ctx.now());
  // Addresses the app made on its local service are saved under "local:<data dir>": a command reaches
  // that service where it may run it (ctx.open), on this user's data dir only.
  const live = all.filter(
    (s) => /^https?:\/\//i.test(s.baseUrl) || (s.baseUrl === ctx.localKey && ctx.io.openLocal !== undefined),
  );
  const where = ref ? ` for ${whereLabel(ref)}` : '';
  if (address === undefined) {
    const current = live[0];
    if (!current) throw new ScriptError(`no saved address${where}: create one with \`tempmail-tui new\``);
    return current;
  }
  const wanted = address.trim().toLowerCase();
  const found = live.find((s) => s.email.toLowerCase() === wanted);
  if (!found && all.some((s) => s.email.toLowerCase() === wanted)) {
    throw new ScriptError(
      `${show(address)} belongs to the app's built-in local service of another data dir, or one this command may not start here`,
    );
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
    ctx.sessions.markRefused(session.email, session.baseUrl, null, session.provider);
    delete session.refusedAt;
  } catch {
    // Only a note in the saved list; the command's own result matters more.
  }
}

/** The ScriptError for an address the service refused, or null when `error` is something else. */
export function refusal(ctx: Context, session: SavedSession, error: unknown): ScriptError | null {
  if (!refusedBeforeExpiry(error, expiryMs(session), ctx.now().getTime())) return null;
  try {
    ctx.sessions.markRefused(session.email, session.baseUrl, ctx.now(), session.provider);
  } catch {
    // Only a note in the saved list: the message below matters more than recording it.
  }
  const why =
    session.provider === 'tempmail'
      ? `its data was reset, or another service answers at ${displayBaseUrl(session.baseUrl)}`
      : 'the account or session is gone';
  const who = session.provider === 'tempmail' ? 'the service' : PROVIDER_INFO[session.provider].label;
  return new ScriptError(
    `${who} no longer knows ${show(session.email)} (${why}); \`tempmail-tui new\` makes another address`,
  );
}

/** Aborts when either does (either may be missing). */
function bothSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}
