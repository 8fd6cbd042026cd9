/**
 * Where the picker creates new addresses: the first of the run's choices at start; `p` moves along them
 * (round again at the end) and says where new addresses now go; with `auto`, a provider that is down,
 * limiting or blocking hands on to the next by itself (never round again), saying which and why, until
 * the user moves with `p`: then where they went is where they stay. Under auto, while there is a next
 * one, each domain list and each creation is a try of AUTO_TRY_MS (client/auto-try.ts): one that
 * trickles or hangs is ended then, its requests with it, and the next one is tried.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { AUTO_TRY_MS, triedProvider } from '../client/auto-try';
import type { MailProvider } from '../client/client-types';
import { sameRef, type ProviderRef, type ProviderSet } from '../client/providers';
import { describeError } from './wording/error-text';
import { providerName } from './wording/provider-text';
import type { StatusMessage } from './wording/status-text';

export interface CreateOn {
  createOn: ProviderRef;
  /** The provider of `createOn` (its tries bounded under auto); null when it cannot be reached. */
  provider: MailProvider | null;
  /** Where `p` goes from here; undefined when there is no other choice. */
  next: ProviderRef | undefined;
  nextProvider(): void;
  /** The provider failed in a way another may not (api-error canFallBack). */
  unavailable(error: unknown): void;
}

export function useCreateOn(
  providers: ProviderSet,
  autoAtStart: boolean,
  say: (message: StatusMessage) => void,
): CreateOn {
  const { choices } = providers;
  const [createOn, setCreateOn] = useState<ProviderRef>(choices[0]!);
  const [auto, setAuto] = useState(autoAtStart);
  const at = choices.findIndex((r) => sameRef(r, createOn));
  const next = choices.length > 1 ? choices[(at + 1) % choices.length] : undefined;
  const onward = at >= 0 ? choices[at + 1] : undefined;
  const bounded = auto && onward !== undefined;
  const provider = useMemo(() => {
    const shared = providers.get(createOn);
    if (!shared || !bounded) return shared;
    return triedProvider(shared, (signal) => providers.fresh(createOn, signal) ?? shared, AUTO_TRY_MS);
  }, [providers, createOn, bounded]);
  // The first try is named as it starts (each later one is named as the app moves on to it).
  const first = useRef(bounded ? createOn : undefined);
  useEffect(() => {
    if (first.current) say({ text: `Trying ${providerName(first.current)}…`, kind: 'info' });
  }, [say]);
  return {
    createOn,
    provider,
    next,
    nextProvider() {
      if (!next) return;
      setCreateOn(next);
      setAuto(false);
      say({ text: `New addresses now go to ${providerName(next)}`, kind: 'info' });
    },
    unavailable(error) {
      if (!auto || !onward) return;
      setCreateOn(onward);
      say({
        text: `${providerName(createOn)}: ${describeError(error)}. Trying ${providerName(onward)} instead`,
        kind: 'info',
      });
    },
  };
}
