/**
 * The providers the client layer speaks, by name: what each is (for `tempmail-tui providers`, the picker
 * and docs/providers.md) and how to make one. The app's and the scripts' one way to get a MailProvider.
 */
import type { ApiOptions, MailProvider, ProviderId, ProviderInfo } from './client-types';
import { createGuerrillaProvider, GUERRILLA_INFO } from './guerrilla/guerrilla-provider';
import { checkBaseUrl } from './base-url';
import { DEFAULT_PROVIDER_ORDER } from '../model/mail-types';
import { normalizeBaseUrl } from '../model/service-url';
import { createMailtmProvider, MAILTM_INFO } from './mailtm/mailtm-provider';
import type { Pacer } from './pacing/pacer';
import { createTempmailProvider, TEMPMAIL_INFO } from './tempmail/tempmail-provider';
import { createTempmaillolProvider, TEMPMAILLOL_INFO } from './tempmaillol/tempmaillol-provider';

/** Every provider, in the order they are listed. */
export const PROVIDER_INFO: Readonly<Record<ProviderId, ProviderInfo>> = {
  tempmail: TEMPMAIL_INFO,
  mailtm: MAILTM_INFO,
  guerrilla: GUERRILLA_INFO,
  tempmaillol: TEMPMAILLOL_INFO,
};

/**
 * Options for any provider; `baseUrl` defaults to the provider's own. The temporary-email interface's
 * options (post encoding, the service's zone) reach only tempmail.
 */
export type ProviderOptions = Partial<ApiOptions> & {
  /**
   * The pacer of a provider at a base URL, for its documented rate (0: none documented; a 429's wait is
   * still shared): the commands and the app give one shared by every process (client/pacing/pacing-file.ts).
   */
  pacerFor?: (provider: ProviderId, baseUrl: string, perSecond: number) => Pacer;
  /** A provider that signs in again (mail.tm) tells each new token, for the saved address. */
  onSignedIn?: (email: string, token: string) => void;
  /** TempMail.lol's API key (TempMail Plus/Ultra), sent as a bearer token. Secret. */
  apiKey?: string;
};

/** A provider client for `id` (at its default base URL unless `options.baseUrl`). Throws ApiError('bad_request') for a bad URL. */
export function createProvider(id: ProviderId, given: ProviderOptions = {}): MailProvider {
  const { pacerFor, onSignedIn, apiKey, ...rest } = given;
  const baseUrl = rest.baseUrl ?? PROVIDER_INFO[id].defaultBaseUrl;
  const pacer = rest.pacer ?? pacerFor?.(id, baseUrl, PROVIDER_INFO[id].limits.requestsPerSecond ?? 0);
  const options = { ...rest, ...(pacer ? { pacer } : {}) };
  switch (id) {
    case 'tempmail':
      return createTempmailProvider({ ...options, baseUrl });
    case 'mailtm':
      return createMailtmProvider({ ...options, baseUrl, onSignedIn });
    case 'guerrilla':
      return createGuerrillaProvider({ ...options, baseUrl });
    case 'tempmaillol':
      return createTempmaillolProvider({ ...options, baseUrl, apiKey: apiKey ?? undefined });
  }
}

/** Where an address lives: a provider and its base URL (or, for the app's in-process service, a "local:" key). */
export interface ProviderRef {
  provider: ProviderId;
  baseUrl: string;
}

/** What the settings say about providers (state/app-config.ts's Settings has these). */
export interface ProviderConfig {
  /** A provider, `auto` (the first of `providerOrder` that answers), or none. */
  provider?: ProviderId | 'auto';
  /** The named provider's base URL. */
  baseUrl?: string;
  /** Each provider's own base URL (config.json `providers`). */
  providers?: Partial<Record<ProviderId, { baseUrl?: string }>>;
  /** The order `auto` and the picker's `p` go through. */
  providerOrder?: readonly ProviderId[];
}

/** A provider where the settings put it: the named one's base URL, else its own from `providers`, else its default. */
function refFor(config: ProviderConfig, id: ProviderId): ProviderRef {
  // The base URL given beside the provider (none named: a tempmail service's).
  const named = (config.provider ?? 'tempmail') === id ? config.baseUrl : undefined;
  return {
    provider: id,
    baseUrl: checkBaseUrl(named ?? config.providers?.[id]?.baseUrl ?? PROVIDER_INFO[id].defaultBaseUrl),
  };
}

/** The providers `auto` tries, in order, each where the settings put it. */
export function orderedRefs(config: ProviderConfig): ProviderRef[] {
  return (config.providerOrder ?? DEFAULT_PROVIDER_ORDER).map((id) => refFor(config, id));
}

/**
 * Where settings point: the named provider at the given base URL or its own; with no provider named, a
 * tempmail service at the given base URL; `auto`: the first of the order (the caller falls back along
 * it); undefined when neither is given (the app then runs its own).
 */
export function configuredRef(config: ProviderConfig): ProviderRef | undefined {
  if (config.provider === 'auto') return orderedRefs(config)[0];
  if (config.provider === undefined && config.baseUrl === undefined) return undefined;
  return refFor(config, config.provider ?? 'tempmail');
}

/**
 * `first`, then the providers of the order, each where the settings put it: what the picker's `p` goes
 * through. A provider of the same family as `first` is not offered again (on mail.tm at another base
 * URL, `p` does not offer mail.tm), except a public tempmail service after the app's own local one.
 */
export function providerChoices(first: ProviderRef, config: ProviderConfig = {}): ProviderRef[] {
  const local = first.baseUrl.startsWith('local:');
  return [first, ...orderedRefs(config).filter((ref) => ref.provider !== first.provider || local)];
}

/** The same ref, one spelling (the one saved addresses use): "tempmail http://127.0.0.1:8025/". */
export const refKey = (ref: ProviderRef): string => `${ref.provider} ${normalizeBaseUrl(ref.baseUrl)}`;

/** True when both name the same provider at the same place. */
export const sameRef = (a: ProviderRef, b: ProviderRef): boolean => refKey(a) === refKey(b);

/** The providers one run of the app talks to, made when first asked for and kept. */
export interface ProviderSet {
  /** What the picker offers to create addresses on, in the order its `p` goes through them; the first is where it starts. */
  readonly choices: readonly ProviderRef[];
  /** The provider of a ref; null when it cannot be reached from here (another run's in-process service). */
  get(ref: ProviderRef): MailProvider | null;
  /**
   * A client of `ref` of its own, whose every request ends when `signal` aborts (a try of `auto`:
   * auto-try.ts); the shared one (`get`) where none can be made (a given provider not over http).
   */
  fresh(ref: ProviderRef, signal: AbortSignal): MailProvider | null;
}

/**
 * A set with some providers given (`known`: the in-process service under its "local:" key, or a test's
 * client) and the others made on first use by `make` (null: cannot be reached).
 */
export function createProviderSet(input: {
  choices: readonly ProviderRef[];
  known?: readonly (readonly [ProviderRef, MailProvider])[];
  make?: (ref: ProviderRef, signal?: AbortSignal) => MailProvider | null;
}): ProviderSet {
  const cache = new Map<string, MailProvider | null>();
  for (const [ref, provider] of input.known ?? []) cache.set(refKey(ref), provider);
  const make = (ref: ProviderRef, signal?: AbortSignal): MailProvider | null => {
    try {
      return /^https?:\/\//i.test(ref.baseUrl) ? (input.make?.(ref, signal) ?? null) : null;
    } catch {
      return null;
    }
  };
  const set: ProviderSet = {
    choices: input.choices,
    get(ref) {
      const key = refKey(ref);
      if (!cache.has(key)) cache.set(key, make(ref));
      return cache.get(key) ?? null;
    },
    fresh(ref, signal) {
      return make(ref, signal) ?? set.get(ref);
    },
  };
  return set;
}
