/**
 * The app's addresses: which one is on screen and on which provider, resuming a saved one, and
 * forgetting one (here, or deleted at its provider first). Plain functions of the app's state.
 */
import { refKey, sameRef, type ProviderRef, type ProviderSet } from '../client/providers';
import type { ReadStateStore } from '../state/read-state';
import type { SavedSession } from '../state/saved-sessions';
import type { Session } from '../model/mail-types';
import type { SavedHandle } from './saved/use-saved';
import { describeError } from './wording/error-text';
import { providerName } from './wording/provider-text';
import type { StatusMessage } from './wording/status-text';

/** What the app shows: the session screens, the picker, or the switcher on top. */
export type AppMode = 'session' | 'picker' | 'switch';

/** An address on screen and the provider it lives on. */
export interface Current {
  session: Session;
  ref: ProviderRef;
}

export const refOf = (s: SavedSession): ProviderRef => ({ provider: s.provider, baseUrl: s.baseUrl });
export const sameAddress = (a: Current | null, email: string, ref: ProviderRef) =>
  a !== null && a.session.email.toLowerCase() === email.toLowerCase() && sameRef(a.ref, ref);

/** The app's state that resuming and forgetting change. */
export interface AddressDeps {
  providers: ProviderSet;
  saved: SavedHandle;
  current: Current | null;
  setCurrent: (current: Current | null) => void;
  setMode: (mode: AppMode) => void;
  setNotice: (notice: StatusMessage | null) => void;
  readMarks?: ReadStateStore;
}

/** Opens a saved address, or says why this run cannot. */
export function resume(deps: AddressDeps, s: SavedSession): void {
  const ref = refOf(s);
  if (!deps.providers.get(ref)) {
    deps.setNotice({ text: `${s.email} lives on ${providerName(ref)}, which this run cannot reach`, kind: 'error' });
    return;
  }
  const { createdAt: _c, refusedAt: _r, usedAt: _u, provider: _p, baseUrl: _b, ...session } = s;
  deps.saved.used(s.email, ref);
  deps.setCurrent({ session, ref });
  deps.setMode('session');
  deps.setNotice(null);
}

/** Forgets an address here (its read marks too), saying `said`; the picker follows when it was on screen. */
export function forgetHere(deps: AddressDeps, email: string, ref: ProviderRef, said: string): void {
  const wasCurrent = sameAddress(deps.current, email, ref);
  const found = deps.saved.forget(email, ref);
  try {
    // Its read marks go with it (they would go at its expiry anyway).
    deps.readMarks?.forget(refKey(ref), email);
  } catch {
    // Only marks: the address is forgotten, which is what was asked.
  }
  deps.setNotice({ text: found ? said : `${email} was not saved here`, kind: 'info' });
  if (wasCurrent) {
    deps.setCurrent(null);
    deps.setMode('picker');
  }
}

/** Forgets an address; with `there`, deletes it at its provider first (and keeps it saved if that fails). */
export function forgetAddress(deps: AddressDeps, session: Session, ref: ProviderRef, there: boolean): void {
  const provider = deps.providers.get(ref);
  if (!there || !provider?.deleteAddress) return forgetHere(deps, session.email, ref, `Forgot ${session.email}`);
  deps.setNotice({ text: `Deleting ${session.email} at ${provider.info.label}…`, kind: 'info' });
  provider.deleteAddress(session).then(
    () => forgetHere(deps, session.email, ref, `Deleted ${session.email} at ${provider.info.label} and forgot it`),
    (error: unknown) =>
      deps.setNotice({
        text: `Not deleted at ${provider.info.label} (still saved): ${describeError(error)}`,
        kind: 'error',
      }),
  );
}
