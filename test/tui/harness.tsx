/**
 * Renders the real App against a real reference service (loopback, port 0) through the real client,
 * with the test in control of the clock, the bell and the clipboard.
 */
import { afterEach } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { tempmailProvider } from '../../src/client/tempmail/tempmail-provider';
import { createProviderSet, type ProviderSet } from '../../src/client/providers';
import type { ApiOptions, TempMailApi } from '../../src/client/client-types';
import type { Session } from '../../src/model/mail-types';
import { App, type AppProps } from '../../src/tui/app';
import { startTestService, type TestService } from '../harness/service';
import { renderAt, type Screen } from './ui';

export interface AppHarness {
  svc: TestService;
  api: TempMailApi;
  screen: Screen;
  bells: () => number;
  copied: string[];
  quits: () => number;
  /** Tokens of the sessions the app created (captured below the app), to prove none reaches the screen. */
  tokens: string[];
  /** True when no frame drawn so far contains any of `tokens`. */
  tokenNeverShown(): boolean;
  close(): Promise<void>;
}

export interface HarnessOptions {
  columns?: number;
  rows?: number;
  /** Render in local mode (shows the SMTP target). */
  local?: boolean;
  pollIntervalMs?: number;
  bell?: boolean;
  props?: Partial<AppProps>;
  /** A service already running (else one is started). */
  svc?: TestService;
  /** Wraps the client (e.g. to count requests); still the real client underneath. */
  wrapApi?: (api: TempMailApi) => TempMailApi;
  initialSession?: Session;
  /** Extra client options (e.g. a wrong serverOffsetMinutes). */
  apiOptions?: Partial<ApiOptions>;
  /** Let the app hear of new mail through the service's event stream (GET /events), as it does for real. */
  push?: boolean;
  /** Builds the App's providers (default: the test's service alone, under `ref`). */
  providers?: (ref: { provider: 'tempmail'; baseUrl: string }, api: TempMailApi) => ProviderSet;
}

// The apps started by the running test file and not yet closed (closeAppsAfterEach closes them).
const open = new Set<AppHarness>();

/**
 * After each test of the calling file, closes every app it started (startApp) that is still open, then
 * runs `then`, the file's own cleanup (after the apps: they may still write to what it removes). Called
 * once at the top of a test file, in place of an afterEach of its own.
 */
export function closeAppsAfterEach(then?: () => Promise<void> | void): void {
  afterEach(async () => {
    for (const app of [...open]) await app.close();
    await then?.();
  });
}

/** Starts a service (unless given) and renders the App against it. */
export async function startApp(options: HarnessOptions = {}): Promise<AppHarness> {
  const svc = options.svc ?? (await startTestService());
  const { openEvents, ...polled } = createApi({
    baseUrl: svc.baseUrl,
    timeoutMs: 3000,
    retries: 0,
    ...options.apiOptions,
  });
  // Without `push`, the inbox learns of mail by its checks alone (`r`, or the poll interval), so a test
  // decides when the list changes; with it, the service's event stream tells the app at once.
  const created: TempMailApi = options.push ? { ...polled, openEvents } : polled;
  const tokens: string[] = [];
  const real: TempMailApi = {
    ...created,
    createSession: async (o) => {
      const session = await created.createSession(o);
      tokens.push(session.token);
      return session;
    },
  };
  const api = options.wrapApi ? options.wrapApi(real) : real;
  // The app's tempmail service is the test's, under the key its saved addresses use.
  const ref = { provider: 'tempmail' as const, baseUrl: options.props?.saved?.serviceKey ?? svc.baseUrl };
  const providers: ProviderSet =
    options.providers?.(ref, api) ??
    createProviderSet({ choices: [ref], known: [[ref, tempmailProvider(api, svc.baseUrl)]] });
  let bells = 0;
  let quits = 0;
  const copied: string[] = [];
  const screen = renderAt(
    <App
      providers={providers}
      settings={{ pollIntervalMs: options.pollIntervalMs ?? 60_000, bell: options.bell ?? true }}
      local={options.local ? { smtpHost: svc.smtpHost, smtpPort: svc.smtpPort } : undefined}
      serviceLabel="Service: test"
      ringBell={() => (bells += 1)}
      copy={async (text) => {
        copied.push(text);
        return 'Copied (test clipboard)';
      }}
      onQuit={() => (quits += 1)}
      noColor
      initialSession={options.initialSession}
      {...options.props}
    />,
    options.columns ?? 80,
    options.rows ?? 24,
  );
  const app: AppHarness = {
    svc,
    api,
    screen,
    bells: () => bells,
    copied,
    quits: () => quits,
    tokens,
    tokenNeverShown: () => tokens.length > 0 && !screen.frames.some((f) => tokens.some((t) => f.includes(t))),
    async close() {
      open.delete(app);
      screen.unmount();
      if (!options.svc) await svc.close();
    },
  };
  open.add(app);
  return app;
}

/** Picks the first choice (a random address on the first domain) and returns the address shown. */
export async function pickFirstDomain(h: AppHarness): Promise<string> {
  await h.screen.waitFor('Random address on');
  await h.screen.press('\r');
  const frame = await h.screen.waitFor(/expires in|expired|expiry unclear/);
  const address = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/.exec(frame)?.[1];
  if (!address) throw new Error(`no address on screen:\n${frame}`);
  return address;
}

/** What countingReads saw: each readMail's id, in order, and the most that ran at once. */
export interface ReadStats {
  reads: number[];
  inFlight: number;
  maxInFlight: number;
}

/** A `wrapApi` that counts the real client's readMail calls and how many ran at once. */
export function countingReads(stats: ReadStats) {
  return (api: TempMailApi): TempMailApi => ({
    ...api,
    readMail: async (token, id) => {
      stats.reads.push(Number(id));
      stats.inFlight += 1;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      try {
        return await api.readMail(token, id);
      } finally {
        stats.inFlight -= 1;
      }
    },
  });
}
