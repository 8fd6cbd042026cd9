/**
 * Message bodies of one session, fetched when a message is opened and cached for the session: a
 * message already fetched (or on its way) is never asked for again, so going back and forth costs no
 * request. A failed fetch is kept as an error until the user asks again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TempMailApi } from '../../api/types';
import type { Message } from '../../core/types';
import { describeError } from '../errors';

export type BodyEntry =
  | { status: 'loading' }
  | { status: 'ready'; message: Message }
  | { status: 'error'; error: string };

export interface MessageCache {
  /** The entry of a message, if it was ever asked for. */
  get(id: number): BodyEntry | undefined;
  /** Fetches a message unless it is cached or pending; `force` retries a failed one. */
  load(id: number, force?: boolean): void;
  /** Forgets a message (after delete). */
  evict(id: number): void;
}

/** A per-session cache of full messages. */
export function useMessageCache(api: TempMailApi, token: string): MessageCache {
  const entries = useRef(new Map<number, BodyEntry>());
  // The map lives in a ref; this counter makes a settled fetch re-render the viewer.
  const [, setVersion] = useState(0);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    entries.current = new Map();
    return () => {
      alive.current = false;
    };
  }, [token]);

  const load = useCallback(
    (id: number, force = false) => {
      const current = entries.current.get(id);
      if (current?.status === 'loading' || current?.status === 'ready') return;
      if (current?.status === 'error' && !force) return;
      const map = entries.current;
      map.set(id, { status: 'loading' });
      setVersion((v) => v + 1);
      api.readMail(token, id).then(
        (message) => {
          if (!alive.current || map !== entries.current || !map.has(id)) return;
          map.set(id, { status: 'ready', message });
          setVersion((v) => v + 1);
        },
        (error: unknown) => {
          if (!alive.current || map !== entries.current || !map.has(id)) return;
          map.set(id, { status: 'error', error: describeError(error) });
          setVersion((v) => v + 1);
        },
      );
    },
    [api, token],
  );

  const get = useCallback((id: number) => entries.current.get(id), []);
  const evict = useCallback((id: number) => {
    entries.current.delete(id);
  }, []);

  return { get, load, evict };
}
