/**
 * Message sources of one session (`R` shows one, `S` saves one), fetched when first asked for and kept
 * for the few messages read last: a source can be 10 MB, so only MAX_KEPT stay in memory. A message
 * already fetched (or on its way) is never asked for twice; a failure is kept until asked again.
 * A provider with no readSource gets nothing here: the viewer shows the parsed message's fields instead.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { MailProvider } from '../../client/client-types';
import type { MessageId, MessageSource, Session } from '../../model/mail-types';
import { describeError } from '../wording/error-text';

export type SourceEntry =
  | { status: 'loading' }
  | { status: 'ready'; source: MessageSource }
  | { status: 'error'; error: string };

export interface SourceCache {
  /** False when the provider cannot give sources at all. */
  available: boolean;
  get(id: MessageId): SourceEntry | undefined;
  /** The source of a message, fetched once; `force` asks again after a failure. */
  load(id: MessageId, force?: boolean): Promise<MessageSource>;
  /** Forgets a message (after delete). */
  evict(id: MessageId): void;
}

const MAX_KEPT = 3;

/** A per-session cache of message sources. */
export function useMessageSources(api: MailProvider, session: Session): SourceCache {
  const token = session.token;
  const entries = useRef(new Map<MessageId, { entry: SourceEntry; pending?: Promise<MessageSource> }>());
  const [, setVersion] = useState(0);
  const alive = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: token is the trigger, read nowhere inside: another session's token starts an empty cache
  useEffect(() => {
    alive.current = true;
    entries.current = new Map();
    return () => {
      alive.current = false;
    };
  }, [token]);

  const load = useCallback(
    (id: MessageId, force = false): Promise<MessageSource> => {
      const map = entries.current;
      const known = map.get(id);
      if (known?.entry.status === 'ready') return Promise.resolve(known.entry.source);
      if (known?.pending && (known.entry.status === 'loading' || !force)) return known.pending;
      if (!api.readSource) return Promise.reject(new Error('This service does not give the message source'));
      const pending = api.readSource(session, id);
      map.set(id, { entry: { status: 'loading' }, pending });
      setVersion((v) => v + 1);
      pending.then(
        (source) => {
          if (!alive.current || map !== entries.current || map.get(id)?.pending !== pending) return;
          map.delete(id);
          map.set(id, { entry: { status: 'ready', source } });
          // The oldest ready ones go first (Map keeps insertion order).
          const ready = [...map].filter(([, v]) => v.entry.status === 'ready');
          for (const [old] of ready.slice(0, Math.max(0, ready.length - MAX_KEPT))) map.delete(old);
          setVersion((v) => v + 1);
        },
        (error: unknown) => {
          if (!alive.current || map !== entries.current || map.get(id)?.pending !== pending) return;
          map.set(id, { entry: { status: 'error', error: describeError(error) }, pending });
          setVersion((v) => v + 1);
        },
      );
      return pending;
    },
    [api, session],
  );

  const get = useCallback((id: MessageId) => entries.current.get(id)?.entry, []);
  const evict = useCallback((id: MessageId) => void entries.current.delete(id), []);
  return { available: api.readSource !== undefined, get, load, evict };
}
