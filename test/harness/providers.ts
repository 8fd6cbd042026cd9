/** A provider set of one tempmail service, for rendering the App against a test's service and client. */
import type { TempMailApi } from '../../src/client/client-types';
import { createProviderSet, type ProviderSet } from '../../src/client/providers';
import { tempmailProvider } from '../../src/client/tempmail/tempmail-provider';

/** The App's providers: only `api` (the service at `baseUrl`), under `key` (the saved-address key, default the URL). */
export function singleProvider(api: TempMailApi, baseUrl: string, key = baseUrl): ProviderSet {
  const ref = { provider: 'tempmail' as const, baseUrl: key };
  return createProviderSet({ choices: [ref], known: [[ref, tempmailProvider(api, baseUrl)]] });
}
