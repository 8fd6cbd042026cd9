/**
 * What every provider of the user's runs is given, in the app and in the scripting commands alike: the
 * pace shared by all the user's processes (pacing-file.ts), the wait of a 429 (10 s a wait, 30 s a call,
 * with a word before each), TempMail.lol's API key from the settings, and each sign-in's token kept with
 * the saved address (an account saved before its first sign-in has none), so the next run need not sign
 * in again.
 */
import type { ProviderOptions, ProviderRef } from './providers';
import { RATE_LIMIT_WAIT } from './pacing/rate-limit-wait';
import type { Settings } from '../state/app-config';
import { createFilePacer, pacingName } from './pacing/pacing-file';
import type { SavedSessionStore } from '../state/saved-sessions';

export interface UserProviderOptions {
  settings: Pick<Settings, 'providers'>;
  /** The state directory (the pacing files live in it). */
  state: string;
  /** Where a sign-in's token is kept. */
  sessions: Pick<SavedSessionStore, 'setToken'>;
  /** Told the seconds of each 429 wait, before it (client/rate-limit-wait.ts rateLimitWords says it). */
  onWait: (seconds: number) => void;
  /** Told a pacing wait of a second or more, and a request that goes without pacing (pacingWords says it). */
  onPacing?: (note: PacingNote) => void;
}

/** A pacing wait of a second or more; or a request going without pacing, its lock held past the bound. */
export type PacingNote = { seconds: number } | { heldBy: string; lock: string };

/** The words for a pacing note: "waiting 3 s for mail.tm's rate limit". */
export function pacingWords(who: string, note: PacingNote): string {
  if ('seconds' in note) return `waiting ${note.seconds} s for ${who}'s rate limit`;
  return `not pacing this request to ${who}: ${note.heldBy} holds ${note.lock} (remove it if that process is stuck)`;
}

/** The options of the provider at `ref`. */
export function userProviderOptions(
  ref: ProviderRef,
  { settings, state, sessions, onWait, onPacing }: UserProviderOptions,
): ProviderOptions {
  return {
    pacerFor: (provider, baseUrl, perSecond) =>
      createFilePacer(state, pacingName(provider, baseUrl), perSecond, {
        onWait: (seconds) => onPacing?.({ seconds }),
        onSkip: (heldBy, lock) => onPacing?.({ heldBy, lock }),
      }),
    rateLimitWait: { ...RATE_LIMIT_WAIT, onWait },
    apiKey: settings.providers[ref.provider]?.apiKey,
    // The provider catches what this throws: a token not kept only costs a later sign-in.
    onSignedIn: (email, token) => sessions.setToken(email, ref.baseUrl, token, ref.provider),
  };
}
