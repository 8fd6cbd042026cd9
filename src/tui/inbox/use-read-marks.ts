/**
 * The read state of one address across switches and restarts (src/state/read-state.ts): read once
 * when the address is shown, saved a moment after a message is opened (several opens in a row, J J J,
 * make one write) and when the address is left. A file that cannot be read or written costs the marks,
 * never the session: the status line says so.
 */
import { dirname } from 'node:path';
import { useEffect, useRef, useState } from 'react';
import type { MessageId, Session } from '../../model/mail-types';
import type { ReadStateStore } from '../../state/read-state';
import { fsProblem } from '../wording/fs-reason';

/** Where read state is kept, and under which service key (the one saved addresses use). */
export interface ReadMarksConfig {
  store: ReadStateStore;
  serviceKey: string;
}

export interface ReadMarks {
  /** The ids opened before, as saved; empty without a store. */
  initial: ReadonlySet<MessageId>;
  /** Saves the opened ids (soon, not at once); `listed` once the inbox is listed, to drop deleted ones. */
  save(read: ReadonlySet<MessageId>, listed: ReadonlySet<MessageId> | undefined): void;
  /** Why the marks could not be read or saved, for the status line; null when all went well. */
  error: string | null;
}

// Long enough to make one write of a burst of opens, short enough that a quit right after loses nothing
// (the last write also happens when the session view goes away).
const SAVE_DELAY_MS = 400;

/** The read marks of `session` in `config` (none without a config). */
export function useReadMarks(config: ReadMarksConfig | undefined, session: Session): ReadMarks {
  const why = (error: unknown) => (config ? fsProblem(error, [config.store.file, dirname(config.store.file)]) : '');
  const [loaded] = useState(() => {
    if (!config) return { initial: new Set<MessageId>(), error: null };
    try {
      return { initial: config.store.load(config.serviceKey, session.email), error: null };
    } catch (error) {
      return { initial: new Set<MessageId>(), error: `Read marks could not be read: ${why(error)}` };
    }
  });
  const [error, setError] = useState<string | null>(loaded.error);
  const pending = useRef<{ read: ReadonlySet<MessageId>; listed?: ReadonlySet<MessageId> } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const alive = useRef(true);

  const flush = useRef<() => void>(() => {});
  flush.current = () => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const next = pending.current;
    pending.current = null;
    if (!config || !next) return;
    try {
      config.store.save(config.serviceKey, session.email, session.expiresAt, next.read, next.listed);
      if (alive.current && error) setError(null);
    } catch (e) {
      if (alive.current) setError(`Read marks not saved: ${why(e)}`);
    }
  };
  useEffect(
    () => () => {
      alive.current = false;
      flush.current();
    },
    [],
  );

  return {
    initial: loaded.initial,
    error,
    save(read, listed) {
      if (!config) return;
      pending.current = { read, listed };
      clearTimeout(timer.current);
      timer.current = setTimeout(() => flush.current(), SAVE_DELAY_MS);
    },
  };
}
