/**
 * The service the app talks to, made ready before the UI is loaded: the local service started when none
 * is configured, the client built, and the domains asked for at once, so the request travels while Ink
 * and React load (~100 ms) instead of after the first frame. No React or Ink here.
 */
import { createApi } from '../../client/tempmail/tempmail-client';
import type { TempMailApi } from '../../client/client-types';
import type { Settings } from '../../state/app-config';
import { safeLine } from '../../text/safe-text';
import { parseZoneOffset } from '../../platform/time';
import type { DomainList } from '../../model/mail-types';
import { early, type Early } from './early';
import { startLocalService, type LocalService } from './local-service';

export interface AppService {
  api: TempMailApi;
  baseUrl: string;
  /** Set in local mode. */
  local?: LocalService;
  /** The first listDomains, already on its way. */
  domains: Early<DomainList>;
}

/** Starts what the app needs from the service; an error is a line for stderr (exit 1). */
export async function connectService(settings: Settings, env: NodeJS.ProcessEnv): Promise<AppService | { error: string }> {
  let local: LocalService | undefined;
  let baseUrl = settings.baseUrl;
  if (!baseUrl) {
    try {
      local = await startLocalService(env);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { error: `could not start the local service: ${safeLine(why, 300)}` };
    }
    baseUrl = local.httpUrl;
  }
  const make = (url: string) =>
    createApi({
      baseUrl: url,
      postEncoding: settings.postEncoding,
      serverOffsetMinutes: parseZoneOffset(settings.serverTz) ?? 0,
    });
  const api = local ? followingApi(local, make) : make(baseUrl);
  return { api, baseUrl, local, domains: early(api.listDomains()) };
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
