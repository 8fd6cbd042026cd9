/**
 * The app's view of the saved addresses (src/state/saved-sessions.ts): the live ones it can reach,
 * newest first, and saving and forgetting, each under its provider and service. The store is a small
 * synchronous file; a failure to read or write it (permissions, a full disk) becomes a line for the
 * status bar, never a crash, and the app goes on without saving.
 */
import { dirname } from 'node:path';
import { useCallback, useState } from 'react';
import { sameRef, type ProviderRef } from '../../client/providers';
import type { SavedSession, SavedSessionStore } from '../../state/saved-sessions';
import { expiryMs, type Session } from '../../model/mail-types';
import { fsProblem } from '../wording/fs-reason';

/**
 * Where addresses are saved, and the key of the tempmail service this run uses (see run-app.tsx: its
 * URL, or "local:" + the data dir for the in-process one).
 */
export interface SavedConfig {
  store: SavedSessionStore;
  serviceKey: string;
}

export interface SavedHandle {
  /** Live saved addresses this run can reach, newest first (as last read; expired ones are dropped on read). */
  list: SavedSession[];
  /** Re-reads the file (another process may have saved or forgotten one). */
  reload(): void;
  /** Saves a new address of `ref`. */
  save(session: Session, ref: ProviderRef): void;
  /** Forgets an address of `ref`; true when it was saved. */
  forget(email: string, ref: ProviderRef): boolean;
  /** Records that an address of `ref` was opened now (resumed, switched to): the next picker highlights it. */
  used(email: string, ref: ProviderRef): void;
  /**
   * Records the service's word on an address: refused (marked, listed last with a note) or known again
   * (mark cleared). Writes only when that changes what is saved.
   */
  setRefused(email: string, ref: ProviderRef, refused: boolean): void;
  /** The last store failure, for the status line; null when all went well. */
  error: string | null;
}

const sameEntry = (s: SavedSession, email: string, ref: ProviderRef) =>
  s.email.toLowerCase() === email.toLowerCase() && sameRef({ provider: s.provider, baseUrl: s.baseUrl }, ref);

/** Saved addresses that `reachable` accepts; with no config, an empty list and no saving. */
export function useSaved(
  config: SavedConfig | undefined,
  clock: () => number,
  reachable: (s: SavedSession) => boolean = () => true,
): SavedHandle {
  // The reason first, the path last (see fs-reason.ts): the status line is cut at the right edge.
  const why = useCallback(
    (error: unknown) => (config ? fsProblem(error, [config.store.file, dirname(config.store.file)]) : ''),
    [config],
  );
  const read = useCallback((): { list: SavedSession[]; error: string | null } => {
    if (!config) return { list: [], error: null };
    try {
      return { list: config.store.listLive(new Date(clock())).filter(reachable), error: null };
    } catch (error) {
      return { list: [], error: `Saved addresses could not be read: ${why(error)}` };
    }
  }, [config, clock, why, reachable]);
  const [state, setState] = useState(read);

  const reload = useCallback(() => setState(read()), [read]);
  const save = useCallback(
    (session: Session, ref: ProviderRef) => {
      if (!config) return;
      try {
        config.store.save(session, ref.baseUrl, ref.provider);
        setState(read());
      } catch (error) {
        setState((s) => ({
          ...s,
          error: `Address not saved: ${why(error)}; it works until it expires but cannot be resumed`,
        }));
      }
    },
    [config, read, why],
  );
  const forget = useCallback(
    (email: string, ref: ProviderRef) => {
      if (!config) return false;
      try {
        const found = config.store.forget(email, ref.baseUrl, ref.provider);
        setState(read());
        return found;
      } catch (error) {
        setState((s) => ({ ...s, error: `Not forgotten: ${why(error)}` }));
        return false;
      }
    },
    [config, read, why],
  );
  const used = useCallback(
    (email: string, ref: ProviderRef) => {
      if (!config) return;
      try {
        config.store.markUsed(email, ref.baseUrl, new Date(clock()), ref.provider);
        setState(read());
      } catch (error) {
        setState((s) => ({ ...s, error: `Saved addresses not updated: ${why(error)}` }));
      }
    },
    [config, clock, read, why],
  );
  const setRefused = useCallback(
    (email: string, ref: ProviderRef, refused: boolean) => {
      if (!config) return;
      const entry = state.list.find((s) => sameEntry(s, email, ref));
      if (!entry || (entry.refusedAt !== undefined) === refused) return;
      try {
        config.store.markRefused(email, ref.baseUrl, refused ? new Date(clock()) : null, ref.provider);
        setState(read());
      } catch (error) {
        setState((s) => ({ ...s, error: `Saved addresses not updated: ${why(error)}` }));
      }
    },
    [config, state.list, clock, read, why],
  );
  return { list: state.list, error: state.error, reload, save, forget, used, setRefused };
}

/** The entries still live at `now` (the list is read now and then; the clock moves on meanwhile). */
export function stillLive(list: SavedSession[], now: number): SavedSession[] {
  return list.filter((s) => expiryMs(s) > now);
}
