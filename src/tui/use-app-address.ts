/**
 * The app's address and screen: the current address, the screen on top (picker, session, switcher), the
 * status-line notice, and the commands that change them (an address created, a saved one chosen, one
 * forgotten, the switcher opened). app.tsx renders what this holds.
 */
import { useCallback, useState } from 'react';
import type { ProviderRef } from '../client/providers';
import type { Session } from '../model/mail-types';
import type { SavedSession } from '../state/saved-sessions';
import {
  type AddressDeps,
  type AppMode,
  type Current,
  forgetAddress,
  refOf,
  resume,
  sameAddress,
} from './app-addresses';
import type { AppProps } from './app-screens';
import type { SavedHandle } from './saved/use-saved';
import type { StatusMessage } from './wording/status-text';

/** The current address and screen of the app, and its commands. `start`: the run's first provider. */
export function useAppAddress(props: AppProps, saved: SavedHandle, start: ProviderRef) {
  const [current, setCurrent] = useState<Current | null>(
    props.initialSession ? { session: props.initialSession, ref: start } : null,
  );
  const [mode, setMode] = useState<AppMode>(props.initialSession === undefined ? 'picker' : 'session');
  const [notice, setNotice] = useState<StatusMessage | null>(null);
  const { onSession } = props;
  const { save } = saved;
  /** A new address: saved, current, and its session on screen. */
  const created = useCallback(
    (s: Session, ref: ProviderRef) => {
      save(s, ref);
      setCurrent({ session: s, ref });
      setMode('session');
      setNotice(null);
      onSession?.(s);
    },
    [onSession, save],
  );
  const addresses: AddressDeps = {
    providers: props.providers,
    saved,
    current,
    setCurrent,
    setMode,
    setNotice,
    readMarks: props.readMarks,
  };
  const chooseSaved = (s: SavedSession) =>
    sameAddress(current, s.email, refOf(s)) ? setMode('session') : resume(addresses, s);
  /** Forgets an address; with `there`, deletes it at its provider first (and keeps it saved if that fails). */
  const forget = (session: Session, ref: ProviderRef, there: boolean) => forgetAddress(addresses, session, ref, there);
  const openSwitcher = () => {
    saved.reload();
    setNotice(null);
    setMode('switch');
  };
  return { current, mode, setMode, notice, setNotice, created, chooseSaved, forget, openSwitcher };
}
