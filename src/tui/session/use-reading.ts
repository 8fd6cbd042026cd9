/**
 * Reading one message after another: which message the viewer shows, opening one (marked read here and,
 * where the service keeps read state, there too), J/K to the next or previous one of the list as it is
 * filtered, the view kept from one message to the next (headers, source, part: ViewerMode; a message
 * opened from the list shows the message, never its source), the source
 * fetched when the source view needs it, and the search in the message shown (typed, kept, cleared).
 */
import { useEffect, useState } from 'react';
import type { MailProvider } from '../../client/client-types';
import type { MessageId, MessageSource, MessageSummary, Session } from '../../model/mail-types';
import type { InboxHandle } from '../inbox/use-inbox';
import type { SearchCount } from '../search/search-line';
import type { SearchState } from '../search/use-search';
import type { MessageCache } from '../viewer/use-message-cache';
import type { SourceCache } from '../source/use-message-source';
import { initialViewerMode, type ViewerMode } from '../viewer/viewer-state';

export type View = { kind: 'inbox' } | { kind: 'viewer'; message: MessageSummary };

export interface ReadingInput {
  api: MailProvider;
  session: Session;
  inbox: InboxHandle;
  cache: MessageCache;
  sources: SourceCache;
  status: { info(text: string): void; clear(): void };
}

export interface Reading {
  view: View;
  mode: ViewerMode;
  setMode(mode: ViewerMode): void;
  /** Shows a message in the viewer, as a message (not its source): opened from the list. */
  open(m: MessageSummary): void;
  /** Back to the list. */
  close(): void;
  /** Back to the list when the viewer shows message `id` (it was deleted). */
  closeIf(id: MessageId): void;
  /** J (1) and K (-1). */
  step(direction: 1 | -1): void;
  /** The source of a message, for `S`. */
  sourceOf(id: MessageId): Promise<MessageSource>;
  search: SearchState | null;
  searchCount: SearchCount | null;
  setSearchCount(count: SearchCount | null): void;
  startSearch(): void;
  typeSearch(pattern: string): void;
  /** Enter in the search input: the search is kept (the viewer then says where it is). */
  keepSearch(): void;
  clearSearch(): void;
}

/** The reading state of one session. */
export function useReading({ api, session, inbox, cache, sources, status }: ReadingInput): Reading {
  const [view, setView] = useState<View>({ kind: 'inbox' });
  const [mode, setMode] = useState<ViewerMode>(initialViewerMode);
  const [search, setSearch] = useState<SearchState | null>(null);
  const [searchCount, setSearchCount] = useState<SearchCount | null>(null);

  const clearSearch = () => {
    setSearch(null);
    setSearchCount(null);
  };
  // Shows `m` in the view as it is (J/K: headers, source, part stay).
  const show = (m: MessageSummary) => {
    // Fire and forget: the service's own read state is a courtesy; ours is what the list shows.
    if (inbox.state.unread.has(m.id)) api.markRead?.(session, m.id).catch(() => undefined);
    inbox.dispatch({ type: 'opened', id: m.id });
    inbox.dispatch({ type: 'select', id: m.id });
    cache.load(m.id);
    // What the status line said was about the message left behind, and so was the search.
    status.clear();
    clearSearch();
    setView({ kind: 'viewer', message: m });
  };
  // Opened from the list: the message itself, whatever R showed before. The part (t) and the headers
  // (H) are ways of reading, kept for the session; the source is a look at one message (issue 26).
  const open = (m: MessageSummary) => {
    if (mode.source) setMode({ ...mode, source: false });
    show(m);
  };
  const close = () => {
    status.clear();
    clearSearch();
    setView({ kind: 'inbox' });
  };
  const step = (direction: 1 | -1) => {
    if (view.kind !== 'viewer') return;
    const list = inbox.state.visible;
    const i = list.findIndex((m) => m.id === view.message.id);
    const next = i >= 0 ? list[i + direction] : undefined;
    if (next) return show(next);
    if (i < 0) return status.info('This message is no longer in the list: q goes back to it');
    status.info(
      direction > 0
        ? 'No next message: this is the last one in the list'
        : 'No previous message: this is the first one in the list',
    );
  };

  // The source view of a message asks for its source (once: the cache keeps it).
  const sourceId = view.kind === 'viewer' && mode.source && sources.available ? view.message.id : null;
  const load = sources.load;
  useEffect(() => {
    if (sourceId !== null) load(sourceId).catch(() => undefined);
  }, [sourceId, load]);

  return {
    view,
    mode,
    setMode,
    open,
    close,
    // After a delete that took a while: the view then, not the one this render saw.
    closeIf: (id) => setView((v) => (v.kind === 'viewer' && v.message.id === id ? { kind: 'inbox' } : v)),
    step,
    // Without sources, what it gives is the parsed fields: no raw message to save.
    sourceOf: (id) => (sources.available ? sources.load(id) : Promise.resolve({ kind: 'fields', fields: [] })),
    search,
    searchCount,
    setSearchCount,
    startSearch: () => {
      setSearch({ pattern: '', typing: true });
      setSearchCount(null);
    },
    typeSearch: (pattern) => setSearch({ pattern, typing: true }),
    // The viewer says where the search is, or that it found nothing (then it is cleared).
    keepSearch: () => (search?.pattern ? setSearch({ pattern: search.pattern, typing: false }) : clearSearch()),
    clearSearch,
  };
}
