/**
 * Message bodies of one session, fetched when a message is opened, or ahead of time in the background
 * (the newest unread few, so the inbox can show their code), and cached for the session: a message
 * already fetched (or on its way) is never asked for again, so going back and forth costs no request.
 * Background fetches run one at a time, never two in flight, and stop when the session view goes away.
 * Each fetched body is read once for its verification code and likely link (its "mark").
 * A failed fetch the user asked for is kept as an error until the user asks again; a failed background
 * fetch is forgotten quietly (opening the message tries again). What is kept is bounded (CACHE_LIMITS:
 * messages and body characters): past it the longest-kept bodies go, never the one last opened, and a
 * message whose body went is fetched again when opened.
 *
 * Pruned to the listing (`prune`, called by the session view when a whole listing left out messages
 * listed before: inbox-state's `dropped`): the bodies (ready) and failures (error) of messages no longer
 * listed go, deleted on the server or by another client, or scrolled off a provider that lists only its
 * newest N (gone for the user too). Never a body on its way (`loading`: a background one that lands for a
 * message gone is pruned at the next change, or pushed out by the bound), and never the message opened
 * last, which the viewer may be showing: a message deleted while open stays readable while it is open
 * (the list no longer has it; J/K say so), and goes at the first pruning after another is opened.
 * O(bodies kept); new mail alone and polls that bring the same ids cost nothing, a key press never prunes.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { isApiError } from '../../client/api-error';
import type { MailProvider } from '../../client/client-types';
import type { Message, MessageId, Session } from '../../model/mail-types';
import { describeError } from '../wording/error-text';
import { loadReader } from './lazy-reader';
import type { Mark } from './mark';

export type BodyEntry =
  | { status: 'loading' }
  /** `mark` is read on a later turn of the event loop than the fetch (it costs a few ms on big mail). */
  | { status: 'ready'; message: Message; mark?: Mark }
  | { status: 'error'; error: string };

export interface MessageCache {
  /** The entry of a message, if it was ever asked for. */
  get(id: MessageId): BodyEntry | undefined;
  /** Fetches a message unless it is cached or pending; `force` retries a failed one. */
  load(id: MessageId, force?: boolean): void;
  /**
   * Fetches these bodies in the background, in this order, one at a time (replaces the previous list:
   * what was queued and not started is dropped; a body on its way is never asked for twice).
   */
  prefetch(ids: readonly MessageId[]): void;
  /** Forgets a message (after delete). */
  evict(id: MessageId): void;
  /** Forgets the bodies and failures of messages not in `listed` (a whole listing), but the one opened last. */
  prune(listed: ReadonlySet<MessageId>): void;
}

export interface CacheLimits {
  /** Fetched messages kept. */
  maxKept: number;
  /** Body characters (text and HTML) kept over all of them. */
  maxChars: number;
}

// A session of reading keeps far fewer; a provider sending new mail at every check (each prefetched) or
// bodies of 64 MiB each must not grow it without end.
const CACHE_LIMITS: Readonly<CacheLimits> = Object.freeze({ maxKept: 200, maxChars: 64 * 1024 * 1024 });

const bodyChars = (m: Message): number => (m.bodyText?.length ?? 0) + (m.bodyHtml?.length ?? 0);

/** Drops the longest-kept fetched bodies past `limits`, never `keep` (the message last opened, or just fetched). */
function trim(map: Map<MessageId, BodyEntry>, limits: CacheLimits, keep: ReadonlySet<MessageId>): void {
  let kept = 0;
  let chars = 0;
  for (const entry of map.values()) {
    if (entry.status !== 'ready') continue;
    kept += 1;
    chars += bodyChars(entry.message);
  }
  for (const [id, entry] of map) {
    if (kept <= limits.maxKept && chars <= limits.maxChars) break;
    if (entry.status !== 'ready' || keep.has(id)) continue;
    map.delete(id);
    kept -= 1;
    chars -= bodyChars(entry.message);
  }
}

/**
 * Deletes the settled entries (ready, error) whose ids are not in `listed`, but `keep` (the message
 * opened last): an entry on its way stays. O(entries), nothing allocated.
 */
export function pruneEntries(
  map: Map<MessageId, BodyEntry>,
  listed: ReadonlySet<MessageId>,
  keep: MessageId | null,
): void {
  for (const [id, entry] of map) {
    if (entry.status !== 'loading' && id !== keep && !listed.has(id)) map.delete(id);
  }
}

/** The refs of a cache that a settled fetch reads and changes. */
interface CacheRefs {
  backgroundBusy: { current: boolean };
  queue: { current: MessageId[] };
  opened: { readonly current: ReadonlySet<MessageId> };
  lastOpened: { readonly current: MessageId | null };
  onMark: { readonly current: ((id: MessageId, mark: Mark) => void) | undefined };
}

/** One fetch of a body, as its answer finds the cache. */
interface FetchRun {
  id: MessageId;
  background: boolean;
  map: Map<MessageId, BodyEntry>;
  /** Still the same session, and the message not evicted meanwhile. */
  current: () => boolean;
  /** Goes on with the queue past a message evicted while its fetch travelled. */
  skip: () => void;
  /** Re-renders the viewer and the list. */
  bump: () => void;
  /** Starts the next background fetch. */
  pump: () => void;
  limits: CacheLimits;
  refs: CacheRefs;
}

/** A body came: kept (the cache trimmed to its limits), then, on a later turn, read for its mark. */
function fetched(run: FetchRun, message: Message): void {
  const { id, background, map } = run;
  if (background) run.refs.backgroundBusy.current = false;
  if (!run.current()) return run.skip();
  const entry: BodyEntry = { status: 'ready', message };
  map.set(id, entry);
  const last = run.refs.lastOpened.current;
  trim(map, run.limits, new Set([id, ...(last === null ? [] : [last])]));
  run.bump();
  // Parsing the answer already took its share of this turn; the mark waits for the next one, and
  // the next background fetch for the mark (one piece of work at a time).
  setImmediate(() => {
    // The reader (HTML conversion, detectors) is loaded on first use; it is usually there by now.
    loadReader().then(
      ({ markOf }) => {
        if (run.current() && map.get(id) === entry) {
          const mark = markOf(message);
          map.set(id, { ...entry, mark });
          run.refs.onMark.current?.(id, mark);
          run.bump();
        }
        if (background) run.pump();
      },
      () => background && run.pump(),
    );
  });
}

/** A fetch failed: shown when the user opened the message, else forgotten quietly. */
function failed(run: FetchRun, error: unknown): void {
  const { id, background, map, refs } = run;
  if (background) refs.backgroundBusy.current = false;
  if (!run.current()) return run.skip();
  if (background && !refs.opened.current.has(id)) {
    map.delete(id);
    // The service is struggling (not merely missing this one message): stop until the next listing.
    if (!(isApiError(error) && error.kind === 'not_found')) refs.queue.current = [];
  } else {
    map.set(id, { status: 'error', error: describeError(error) });
  }
  run.bump();
  if (background) run.pump();
}

/** A per-session cache of full messages. */
export function useMessageCache(
  api: MailProvider,
  session: Session,
  limits: CacheLimits = CACHE_LIMITS,
  /** Told each mark read, to keep it past this cache (the body may go; the row's badge stays). */
  onMark?: (id: MessageId, mark: Mark) => void,
): MessageCache {
  const token = session.token;
  const entries = useRef(new Map<MessageId, BodyEntry>());
  // The map lives in a ref; this counter makes a settled fetch re-render the viewer and the list.
  const [, setVersion] = useState(0);
  const alive = useRef(true);
  const queue = useRef<MessageId[]>([]);
  const backgroundBusy = useRef(false);
  // Messages the user opened: their failures are shown, not dropped.
  const opened = useRef(new Set<MessageId>());
  // The message opened last (the viewer may be showing it): its body is never the one dropped.
  const lastOpened = useRef<MessageId | null>(null);
  const onMarkRef = useRef(onMark);
  onMarkRef.current = onMark;

  // biome-ignore lint/correctness/useExhaustiveDependencies: token is the trigger, read nowhere inside: another session's token starts an empty cache and queue
  useEffect(() => {
    alive.current = true;
    entries.current = new Map();
    queue.current = [];
    backgroundBusy.current = false;
    opened.current = new Set();
    lastOpened.current = null;
    return () => {
      alive.current = false;
      queue.current = [];
    };
  }, [token]);

  const fetch = useCallback(
    (id: MessageId, background: boolean) => {
      const map = entries.current;
      map.set(id, { status: 'loading' });
      setVersion((v) => v + 1);
      const sameSession = () => alive.current && map === entries.current;
      const current = () => sameSession() && map.has(id);
      // A message deleted (evicted) while its background fetch travelled must not stall the queue.
      const skip = () => {
        if (background && sameSession()) pumpRef.current();
      };
      const run: FetchRun = {
        id,
        background,
        map,
        current,
        skip,
        bump: () => setVersion((v) => v + 1),
        pump: () => pumpRef.current(),
        limits,
        refs: { backgroundBusy, queue, opened, lastOpened, onMark: onMarkRef },
      };
      api.readMessage(session, id).then(
        (message) => fetched(run, message),
        (error: unknown) => failed(run, error),
      );
    },
    [api, session, limits],
  );

  // Starts the next background fetch when none is running.
  const pumpRef = useRef<() => void>(() => {});
  pumpRef.current = () => {
    if (backgroundBusy.current || !alive.current) return;
    while (queue.current.length > 0) {
      const id = queue.current.shift()!;
      if (entries.current.has(id)) continue;
      backgroundBusy.current = true;
      fetch(id, true);
      return;
    }
  };

  const load = useCallback(
    (id: MessageId, force = false) => {
      opened.current.add(id);
      lastOpened.current = id;
      const current = entries.current.get(id);
      if (current?.status === 'ready') {
        // Read again: now the newest kept, the last to go.
        entries.current.delete(id);
        entries.current.set(id, current);
        return;
      }
      if (current?.status === 'loading') return;
      if (current?.status === 'error' && !force) return;
      fetch(id, false);
    },
    [fetch],
  );

  const prefetch = useCallback((ids: readonly MessageId[]) => {
    queue.current = ids.filter((id) => !entries.current.has(id));
    pumpRef.current();
  }, []);

  const get = useCallback((id: MessageId) => entries.current.get(id), []);
  const evict = useCallback((id: MessageId) => {
    entries.current.delete(id);
    queue.current = queue.current.filter((q) => q !== id);
  }, []);

  const prune = useCallback((listed: ReadonlySet<MessageId>) => {
    const keep = lastOpened.current;
    pruneEntries(entries.current, listed, keep);
    for (const id of opened.current) if (id !== keep && !listed.has(id)) opened.current.delete(id);
  }, []);

  return { get, load, prefetch, evict, prune };
}
