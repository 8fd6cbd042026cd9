/**
 * The picker's I/O: the domain list (loading, error with retry, ready) and address creation, one
 * request at a time. A taken custom name is reported to the caller rather than as a failure.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { isApiError } from '../../api/errors';
import type { TempMailApi } from '../../api/types';
import type { CreateSessionOptions, DomainList, Session } from '../../core/types';
import type { Early } from '../early';
import { describeError } from '../errors';

export type DomainsState = { status: 'loading' } | { status: 'error'; error: string } | { status: 'ready'; list: DomainList };

export interface PickerHandle {
  domains: DomainsState;
  /** Loads the domains again (after an error). */
  retry(): void;
  creating: boolean;
  /** The last creation error, for the status line. */
  error: string | null;
  /** Creates an address; `onTaken` runs instead of an error when the custom name is in use (409). */
  create(options: CreateSessionOptions, onTaken?: () => void): void;
  clearError(): void;
}

function fromOutcome(early: Early<DomainList> | undefined): DomainsState {
  const outcome = early?.settled();
  if (!outcome) return { status: 'loading' };
  return outcome.ok ? { status: 'ready', list: outcome.value } : { status: 'error', error: describeError(outcome.error) };
}

/** Domain list and address creation for the picker; `early` is a listDomains already on its way. */
export function usePicker(api: TempMailApi, onCreated: (session: Session) => void, early?: Early<DomainList>): PickerHandle {
  // Only the first load may use the early request; a retry asks again.
  const first = useRef(early);
  const [domains, setDomains] = useState<DomainsState>(() => fromOutcome(early));
  const [attempt, setAttempt] = useState(0);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  useEffect(() => {
    let cancelled = false;
    const pending = first.current;
    first.current = undefined;
    // Already settled: the first render showed it.
    if (pending?.settled()) return;
    setDomains({ status: 'loading' });
    (pending?.promise ?? api.listDomains()).then(
      (list) => !cancelled && setDomains({ status: 'ready', list }),
      (e: unknown) => !cancelled && setDomains({ status: 'error', error: describeError(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [api, attempt]);

  const create = useCallback(
    (options: CreateSessionOptions, onTaken?: () => void) => {
      // One creation at a time: a second Enter while the first is on its way must not make two addresses.
      if (busy.current) return;
      busy.current = true;
      setCreating(true);
      setError(null);
      api.createSession(options).then(
        (session) => {
          busy.current = false;
          if (!mounted.current) return;
          setCreating(false);
          onCreated(session);
        },
        (e: unknown) => {
          busy.current = false;
          if (!mounted.current) return;
          setCreating(false);
          if (onTaken && isApiError(e) && e.kind === 'prefix_taken') onTaken();
          else setError(describeError(e));
        },
      );
    },
    [api, onCreated],
  );

  return {
    domains,
    retry: () => setAttempt((n) => n + 1),
    creating,
    error,
    create,
    clearError: () => setError(null),
  };
}
