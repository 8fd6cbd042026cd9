/**
 * Where the picker creates new addresses: the first of the run's choices at start; `p` moves along them
 * (round again at the end) and says where new addresses now go; with `auto`, a provider that is down,
 * limiting or blocking hands on to the next by itself (never round again), saying which and why, until
 * the user moves with `p`: then where they went is where they stay.
 */
import { useState } from 'react';
import { sameRef, type ProviderRef } from '../client/providers';
import { describeError } from './wording/error-text';
import { providerName } from './wording/provider-text';
import type { StatusMessage } from './wording/status-text';

export interface CreateOn {
  createOn: ProviderRef;
  /** Where `p` goes from here; undefined when there is no other choice. */
  next: ProviderRef | undefined;
  nextProvider(): void;
  /** The provider failed in a way another may not (api-error canFallBack). */
  unavailable(error: unknown): void;
}

export function useCreateOn(
  choices: readonly ProviderRef[],
  autoAtStart: boolean,
  say: (message: StatusMessage) => void,
): CreateOn {
  const [createOn, setCreateOn] = useState<ProviderRef>(choices[0]!);
  const [auto, setAuto] = useState(autoAtStart);
  const at = choices.findIndex((r) => sameRef(r, createOn));
  const next = choices.length > 1 ? choices[(at + 1) % choices.length] : undefined;
  return {
    createOn,
    next,
    nextProvider() {
      if (!next) return;
      setCreateOn(next);
      setAuto(false);
      say({ text: `New addresses now go to ${providerName(next)}`, kind: 'info' });
    },
    unavailable(error) {
      const onward = choices[at + 1];
      if (!auto || at < 0 || !onward) return;
      setCreateOn(onward);
      say({
        text: `${providerName(createOn)}: ${describeError(error)}. Trying ${providerName(onward)} instead`,
        kind: 'info',
      });
    },
  };
}
