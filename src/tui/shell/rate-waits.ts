/**
 * The app's word that a provider is limiting requests and a call is waiting out its Retry-After (the
 * HTTP client waits; http-client.ts), or a long wait for its pace shared with the user's other
 * processes: told by the providers, said on the status line by the app.
 */
import { rateLimitWords } from '../../client/pacing/rate-limit-wait';

export interface RateWait {
  /** The provider's name for people ("mail.tm"). */
  label: string;
  seconds: number;
  /** Other words than a 429's, for the same kind of wait (a pacing wait: client/provider-options.ts pacingWords). */
  text?: string;
}

export interface RateWaits {
  tell(wait: RateWait): void;
  /** Calls `listener` for each wait from now on; returns the way to stop. */
  subscribe(listener: (wait: RateWait) => void): () => void;
}

export function createRateWaits(): RateWaits {
  const listeners = new Set<(wait: RateWait) => void>();
  return {
    tell(wait) {
      for (const listener of listeners) listener(wait);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The status line's words for a wait. */
export const rateWaitText = (wait: RateWait): string => wait.text ?? rateLimitWords(wait.label, wait.seconds);
