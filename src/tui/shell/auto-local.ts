/**
 * `--provider auto` offline (issue 37.8): after every provider of the order comes the app's local
 * service, the one it runs when nothing is configured, so an app with no internet still makes an
 * address, saying it falls back to it (use-create-on.ts). The service starts only when something is
 * first asked of it (auto fell back to it, or `p` went there), and the app stops it at exit.
 */
import type { ApiOptions, MailProvider, TempMailApi } from '../../client/client-types';
import type { ProviderRef } from '../../client/providers';
import { createApi } from '../../client/tempmail/tempmail-client';
import { tempmailProvider } from '../../client/tempmail/tempmail-provider';
import { appPaths } from '../../state/paths';
import { startLocalService, type LocalService } from './local-service';

export interface AutoLocal {
  /** The local service's key, as local mode saves its addresses ("local:<data dir>"). */
  ref: ProviderRef;
  provider: MailProvider;
  /** Stops the service when it was started (a borrowed one keeps running). */
  close(): Promise<void>;
}

// Where the provider says it is until the service runs (only its host is ever read: a loopback one).
const NOT_YET = 'http://127.0.0.1/';

/** The local service as the last choice of `auto`, started on first use. */
export function autoLocal(env: NodeJS.ProcessEnv, options: Omit<ApiOptions, 'baseUrl'>): AutoLocal {
  let running: Promise<{ local: LocalService; api: TempMailApi }> | undefined;
  let url: string | undefined;
  const ready = () => {
    if (!running) {
      const starting = startLocalService(env).then((local) => {
        url = local.httpUrl;
        return { local, api: createApi({ ...options, baseUrl: local.httpUrl }) };
      });
      // A start that failed (a port in a strange state) is tried again at the next call.
      starting.catch(() => {
        if (running === starting) running = undefined;
      });
      running = starting;
    }
    return running;
  };
  // Every call of the wire client waits for the service, then goes to it.
  const api = new Proxy({} as TempMailApi, {
    get:
      (_target, name) =>
      async (...args: unknown[]) => {
        const { api: real } = await ready();
        return (Reflect.get(real, name) as (...a: unknown[]) => unknown).apply(real, args);
      },
  });
  const base = tempmailProvider(api, NOT_YET);
  return {
    ref: { provider: 'tempmail', baseUrl: `local:${appPaths(env).data}` },
    provider: {
      ...base,
      get baseUrl() {
        return url ?? NOT_YET;
      },
    },
    async close() {
      const started = await running?.catch(() => undefined);
      await started?.local.close();
    },
  };
}
