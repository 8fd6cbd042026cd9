/**
 * The providers the app talks to, made ready before the UI is loaded: the local service started when
 * nothing is configured, the configured provider's client built, the others (the picker's `p`) made when
 * first asked for, and the first provider's domains asked for at once, so the request travels while Ink
 * and React load (~100 ms) instead of after the first frame. No React or Ink here.
 */
import type { MailProvider } from '../../client/client-types';
import { configuredRef, createProvider, createProviderSet, providerChoices, type ProviderRef, type ProviderSet } from '../../client/providers';
import { createTempmailProvider } from '../../client/tempmail/tempmail-provider';
import type { Settings } from '../../state/app-config';
import { appPaths } from '../../state/paths';
import { safeLine } from '../../text/safe-text';
import { parseZoneOffset } from '../../platform/time';
import type { DomainList } from '../../model/mail-types';
import { early, type Early } from './early';
import { startLocalService, type LocalService } from './local-service';

export interface AppService {
  providers: ProviderSet;
  /** Where new addresses go at start (`providers.choices[0]`), and where its addresses are saved. */
  start: ProviderRef;
  /** The start's base URL as the picker names it (the local service's own URL in local mode). */
  baseUrl: string;
  /** Set in local mode. */
  local?: LocalService;
  /** The first listDomains, already on its way. */
  domains: Early<DomainList>;
}

/**
 * The key under which addresses are saved. A configured service is its provider's normalized URL (what
 * the scripting commands use too). The local service gets a new HTTP port every run, so its addresses
 * are saved under "local:" plus its data directory, which is what actually holds them across runs.
 */
export function startRef(settings: Pick<Settings, 'provider' | 'baseUrl'>, env: NodeJS.ProcessEnv): ProviderRef {
  return configuredRef(settings) ?? { provider: 'tempmail', baseUrl: `local:${appPaths(env).data}` };
}

/** Starts what the app needs from its providers; an error is a line for stderr (exit 1). */
export async function connectService(settings: Settings, env: NodeJS.ProcessEnv): Promise<AppService | { error: string }> {
  const start = startRef(settings, env);
  const options = {
    postEncoding: settings.postEncoding,
    serverOffsetMinutes: parseZoneOffset(settings.serverTz) ?? 0,
  };
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
      first = createTempmailProvider({ ...options, baseUrl: local.httpUrl });
    } else {
      first = createProvider(start.provider, { ...options, baseUrl: start.baseUrl });
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { error: safeLine(why, 300) };
  }
  const providers = createProviderSet({
    choices: providerChoices(start),
    known: [[start, first]],
    make: (ref) => createProvider(ref.provider, { ...options, baseUrl: ref.baseUrl }),
  });
  return { providers, start, baseUrl: local?.httpUrl ?? start.baseUrl, local, domains: early(first.listDomains()) };
}
