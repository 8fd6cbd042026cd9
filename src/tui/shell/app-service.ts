/**
 * The providers the app talks to, made ready before the UI is loaded: the local service started when
 * nothing is configured, the configured provider's client built, the others (the picker's `p`) made when
 * first asked for, and the first provider's domains asked for at once, so the request travels while Ink
 * and React load (docs/performance.md, "Figures the code relies on") instead of after the first frame. No React or Ink here, and no HTTP client
 * code yet (the first request of a tempmail service goes without it: quick-domains.ts).
 */
import type { MailProvider, TempMailApi } from '../../client/client-types';
import {
  configuredRef,
  createProvider,
  createProviderSet,
  providerChoices,
  type ProviderOptions,
  type ProviderRef,
  type ProviderSet,
} from '../../client/providers';
import { AUTO_TRY_MS, withinDeadline } from '../../client/auto-try';
import { quickDomains } from '../../client/tempmail/quick-domains';
import { createApi } from '../../client/tempmail/tempmail-client';
import { tempmailProvider } from '../../client/tempmail/tempmail-provider';
import type { Settings } from '../../state/app-config';
import { appPaths } from '../../state/paths';
import { pacingWords, userProviderOptions } from '../../client/provider-options';
import { openSavedSessions } from '../../state/saved-sessions';
import { safeLine } from '../../text/safe-text';
import { parseZoneOffset } from '../../platform/time';
import type { DomainList } from '../../model/mail-types';
import { early, type Early } from './early';
import { startLocalService, type LocalService } from './local-service';
import { autoLocal, type AutoLocal } from './auto-local';
import { createRateWaits, type RateWaits } from './rate-waits';
import { providerName } from '../wording/provider-text';

export interface AppService {
  providers: ProviderSet;
  /** Where new addresses go at start (`providers.choices[0]`), and where its addresses are saved. */
  start: ProviderRef;
  /** The start's base URL (the local service's own URL in local mode). */
  baseUrl: string;
  /** Set in local mode. */
  local?: LocalService;
  /** With `auto`: the local service after the order's providers, started on first use (auto-local.ts). */
  autoLocal?: AutoLocal;
  /** The first listDomains, already on its way. */
  domains: Early<DomainList>;
  /** A provider limiting requests, and a call waiting it out: for the status line. */
  rateWaits: RateWaits;
}

/**
 * Where new addresses go at start, and the key its addresses are saved under: the configured provider's
 * normalized URL (what the scripting commands use too), or, with nothing configured, "local:" plus the
 * in-process service's data directory: it gets a new HTTP port every run, and the data dir is what holds
 * its addresses across runs.
 */
export function startRef(
  settings: Partial<Pick<Settings, 'provider' | 'baseUrl' | 'providers' | 'providerOrder'>>,
  env: NodeJS.ProcessEnv,
): ProviderRef {
  return configuredRef(settings) ?? { provider: 'tempmail', baseUrl: `local:${appPaths(env).data}` };
}

/** Starts what the app needs from its providers; an error is a line for stderr (exit 1). */
export async function connectService(
  settings: Settings,
  env: NodeJS.ProcessEnv,
): Promise<AppService | { error: string }> {
  const start = startRef(settings, env);
  const rateWaits = createRateWaits();
  const state = appPaths(env).state;
  const sessions = openSavedSessions({ dir: state });
  // Each provider keeps its documented rate together with the user's other processes (the scripts), and
  // a 429 is waited out with a word on the status line.
  const options = (ref: ProviderRef): ProviderOptions => ({
    postEncoding: settings.postEncoding,
    serverOffsetMinutes: parseZoneOffset(settings.serverTz) ?? 0,
    ...userProviderOptions(ref, {
      settings,
      state,
      sessions,
      onWait: (seconds) => rateWaits.tell({ label: providerName(ref), seconds }),
      onPacing: (note) =>
        rateWaits.tell({
          label: providerName(ref),
          seconds: 'seconds' in note ? note.seconds : 0,
          text: pacingWords(providerName(ref), note),
        }),
    }),
  });
  let local: LocalService | undefined;
  let first: MailProvider;
  try {
    if (start.baseUrl.startsWith('local:')) {
      try {
        local = await startLocalService(env);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { error: `could not start the local service: ${safeLine(why, 300)}` };
      }
      // The in-process service is not paced: nobody else's limits apply to it.
      const { pacerFor: _p, rateLimitWait: _w, ...plain } = options(start);
      first = withLocalPush(
        tempmailProvider(
          followingApi(local, (url) => createApi({ ...plain, baseUrl: url })),
          local.httpUrl,
        ),
        local,
      );
    } else {
      first = createProvider(start.provider, { ...options(start), baseUrl: start.baseUrl });
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { error: safeLine(why, 300) };
  }
  // Offline, every public provider fails: auto ends on the local service, which works.
  const { pacerFor: _p, rateLimitWait: _w, ...plain } = options(start);
  const last = settings.provider === 'auto' ? autoLocal(env, plain) : undefined;
  const providers = createProviderSet({
    choices: [...providerChoices(start, settings), ...(last ? [last.ref] : [])],
    known: [[start, first], ...(last ? [[last.ref, last.provider] as const] : [])],
    make: (ref, signal) =>
      createProvider(ref.provider, { ...options(ref), baseUrl: ref.baseUrl, ...(signal ? { signal } : {}) }),
  });
  // With auto, the first domains are the first provider's try: bounded as the picker's are (use-create-on.ts).
  const domains = last
    ? withinDeadline(AUTO_TRY_MS, (signal) => firstDomains(start, providers.fresh(start, signal) ?? first, signal))
    : firstDomains(start, first);
  return {
    providers,
    start,
    baseUrl: local?.httpUrl ?? start.baseUrl,
    local,
    autoLocal: last,
    domains: early(domains),
    rateWaits,
  };
}

/**
 * The first provider's domains for the picker's first frame: from a tempmail service, asked over Node's
 * own HTTP (the client's code is not loaded yet, and loading it first would hold the frame back); should
 * that fail in any way, asked again through the provider, whose answer or error the picker shows.
 */
function firstDomains(start: ProviderRef, first: MailProvider, signal?: AbortSignal): Promise<DomainList> {
  if (start.provider !== 'tempmail') return first.listDomains();
  return quickDomains(first.baseUrl, signal).catch(() => first.listDomains());
}

/**
 * A client that follows the local service when it changes hands (local-service.ts): a takeover keeps the
 * URL where the port is free, and where it is not, every later call goes to the new URL. Calls already
 * on their way finish (or fail, and the poller retries) against the old one.
 */
export function followingApi(local: LocalService, make: (url: string) => TempMailApi): TempMailApi {
  let url = local.httpUrl;
  let current = make(url);
  local.onChange(() => {
    if (local.httpUrl === url) return;
    url = local.httpUrl;
    current = make(url);
  });
  // Every method of the client, whatever the interface grows, is looked up on the current one.
  return new Proxy({} as TempMailApi, {
    get(_target, name) {
      const value: unknown = Reflect.get(current, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
}

/**
 * The in-process service's provider with its new-mail push: the service tells of mail for the address
 * as it stores it (MailService.watchInbox), and the inbox checks at once instead of at its next poll.
 * Polling goes on (a borrowed service, run by another process, has nothing to tell this one).
 */
export function withLocalPush(provider: MailProvider, local: LocalService): MailProvider {
  return {
    ...provider,
    watchMail: (session, events) =>
      local.watchInbox(session.token, {
        onMail: events.onMail,
        onState: (live) => events.onState(live ? 'live' : 'down'),
      }),
  };
}
