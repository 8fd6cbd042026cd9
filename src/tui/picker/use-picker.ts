/**
 * The picker's I/O: the domain list (loading, error with retry, ready) and address creation, one
 * request at a time. A taken custom name is reported to the caller rather than as a failure. A failed
 * domain list is asked for again by itself, backing off (2 s doubling with jitter, up to 30 s, or the
 * service's Retry-After), so an app started before its service finds it without a key press; an
 * address that is not the service's is not asked again until r.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { canFallBack, isApiError } from '../../client/api-error';
import type { MailProvider } from '../../client/client-types';
import { failureDelay } from '../../client/pacing/poller';
import type { CreateSessionOptions, DomainList, Session } from '../../model/mail-types';
import type { Early } from '../shell/early';
import { describeError, pollVerdict } from '../wording/error-text';

export type DomainsState =
  | { status: 'loading' }
  /**
   * `retryAt`: when it asks again by itself (ms on the app's clock); null while it is asking, or when
   * `held`: the address is not the service's, so it waits for r rather than asking again by itself.
   */
  | { status: 'error'; error: string; retryAt: number | null; held?: boolean; cause?: unknown }
  | { status: 'ready'; list: DomainList };

// The first retry after 1-2 s, then doubling to 30 s: a picker waits on a person, not a schedule.
const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 30_000;

/** When to ask again after `failures` failed loads: as the inbox poller would (backoff, or what a 429/503 asked for). */
function retryDelay(failures: number, error: unknown): number {
  return failureDelay(failures, pollVerdict(error).retryAfterMs, RETRY_BASE_MS, RETRY_MAX_MS, Math.random);
}

export interface PickerHandle {
  domains: DomainsState;
  /** Loads the domains again (after an error); nothing while a load is on its way. */
  retry(): void;
  creating: boolean;
  /** The last creation error, for the status line. */
  error: string | null;
  /** Creates an address; `onTaken` runs instead of an error when the custom name is in use (409). */
  create(options: CreateSessionOptions, onTaken?: () => void): void;
  clearError(): void;
}

/** The error state for a failed load, the `failures`-th in a row. */
function failed(error: unknown, failures: number, clock: () => number): DomainsState {
  if (pollVerdict(error).hold)
    return { status: 'error', error: describeError(error), retryAt: null, held: true, cause: error };
  return { status: 'error', error: describeError(error), retryAt: clock() + retryDelay(failures, error), cause: error };
}

function fromOutcome(early: Early<DomainList> | undefined, clock: () => number): DomainsState {
  const outcome = early?.settled();
  if (!outcome) return { status: 'loading' };
  if (outcome.ok) return { status: 'ready', list: outcome.value };
  return failed(outcome.error, 1, clock);
}

/** Domain list and address creation for the picker; `early` is a listDomains already on its way. */
export function usePicker(
  api: MailProvider,
  onCreated: (session: Session) => void,
  early?: Early<DomainList>,
  clock: () => number = Date.now,
  onKept?: (pending: Session) => void,
  onUnavailable?: (error: unknown) => void,
): PickerHandle {
  // Only the first load may use the early request; a retry asks again.
  const first = useRef(early);
  const [domains, setDomains] = useState<DomainsState>(() => fromOutcome(early, clock));
  const [attempt, setAttempt] = useState(0);
  // Failed loads in a row, for the backoff; a success starts over.
  const failures = useRef(domains.status === 'error' ? 1 : 0);
  // A load is on its way: r and the retry timer wait for it rather than send a second one.
  const loading = useRef(false);
  // Read through a ref: a new clock function each render must not restart the load.
  const clockRef = useRef(clock);
  clockRef.current = clock;
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

  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger, read nowhere inside: r and the retry timer bump it to load the domains again
  useEffect(() => {
    let cancelled = false;
    const pending = first.current;
    first.current = undefined;
    // Already settled: the first render showed it.
    if (pending?.settled()) return;
    // A retry keeps the error on screen (now "trying again") rather than flashing "Loading" each time.
    setDomains((d) => (d.status === 'error' ? { ...d, retryAt: null, held: false } : { status: 'loading' }));
    loading.current = true;
    (pending?.promise ?? api.listDomains()).then(
      (list) => {
        loading.current = false;
        if (cancelled) return;
        failures.current = 0;
        setDomains({ status: 'ready', list });
      },
      (e: unknown) => {
        loading.current = false;
        if (cancelled) return;
        failures.current += 1;
        setDomains(failed(e, failures.current, clockRef.current));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, attempt]);

  // Failed: ask again when due (r asks at once and cancels this wait).
  const retryAt = domains.status === 'error' ? domains.retryAt : null;
  const again = useCallback(() => {
    if (!loading.current) setAttempt((n) => n + 1);
  }, []);
  useEffect(() => {
    if (retryAt === null) return;
    const timer = setTimeout(again, Math.max(0, retryAt - clockRef.current()));
    return () => clearTimeout(timer);
  }, [retryAt, again]);

  const create = useCallback(
    (options: CreateSessionOptions, onTaken?: () => void) => {
      // One creation at a time: a second Enter while the first is on its way must not make two addresses.
      if (busy.current) return;
      busy.current = true;
      setCreating(true);
      setError(null);
      // An account made before its sign-in (mail.tm) is saved at once: a sign-in that fails leaves it resumable.
      api.createSession(options, { keep: onKept }).then(
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
          // Down, limiting or blocking: the app may move on to the next provider (auto).
          if (canFallBack(e)) onUnavailable?.(e);
        },
      );
    },
    [api, onCreated, onKept, onUnavailable],
  );

  // A domain list that failed in a way another provider may not: told once per failure.
  const cause = domains.status === 'error' ? domains.cause : undefined;
  const unavailable = useRef(onUnavailable);
  unavailable.current = onUnavailable;
  useEffect(() => {
    if (cause !== undefined && canFallBack(cause)) unavailable.current?.(cause);
  }, [cause]);

  return {
    domains,
    retry: again,
    creating,
    error,
    create,
    clearError: () => setError(null),
  };
}
