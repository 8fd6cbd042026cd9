/**
 * What the session view holds beside its screens: one address's data (the inbox, read marks, bodies and
 * sources fetched), the inbox filter, and which screen is up (the keys and the footer follow it).
 */
import { useEffect, useState } from 'react';
import { headerHeight } from '../inbox/session-header';
import type { InboxHandle } from '../inbox/use-inbox';
import { useInbox } from '../inbox/use-inbox';
import { useReadMarks } from '../inbox/use-read-marks';
import type { Screen } from '../keymap/keymap';
import { useMessageSources } from '../source/use-message-source';
import { useMessageCache } from '../viewer/use-message-cache';
import { keepsWorking } from '../wording/expiry-text';
import type { StatusMessage } from '../wording/status-text';
import { bottomHeight, questionScreen, type Question } from './session-bottom';
import type { SessionViewProps } from './session-screens';

/** One address's data: the inbox (polled), its read marks, the codes and links kept, the bodies and sources fetched. */
export function useSessionData(props: SessionViewProps) {
  const { provider: api, session } = props;
  const marks = useReadMarks(props.readMarks, session);
  const inbox = useInbox({
    api,
    session,
    intervalMs: props.intervalMs,
    clock: props.clock,
    onTokenAnswer: props.onTokenAnswer,
    read: marks.initial,
  });
  const kept = props.marks;
  const cache = useMessageCache(api, session, undefined, kept.set);
  const sources = useMessageSources(api, session);
  // A whole listing left out messages listed before (the reducer counts them in `dropped`): the bodies
  // and marks of what is no longer listed go (mark-book.ts, use-message-cache.ts say what stays). New mail
  // alone, polls that bring the same ids, and keys leave the count as it was: nothing runs.
  const { dropped, all } = inbox.state;
  const prune = cache.prune;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the count is the trigger; `all` is this render's list, `kept` a new handle each render (this view is keyed by its address)
  useEffect(() => {
    if (dropped === 0) return;
    const listed = new Set(all.map((m) => m.id));
    kept.prune(listed);
    prune(listed);
  }, [dropped, prune]);
  return { marks, inbox, kept, cache, sources };
}

/** The inbox filter: whether it is being typed, its text, and clearing it (Esc in the input, or in the list while set). */
export function useFilter(inbox: Pick<InboxHandle, 'dispatch'>) {
  const [filtering, setFiltering] = useState(false);
  const [filterText, setFilterText] = useState('');
  const clearFilter = () => {
    setFiltering(false);
    setFilterText('');
    inbox.dispatch({ type: 'filter', text: '' });
  };
  return { filtering, setFiltering, filterText, setFilterText, clearFilter };
}

/**
 * Which screen is up: a question first, then the help, the filter input, the viewer (or its search: being
 * typed, or found), else the inbox. `asking` is the question's screen, `searchScreen` the search's.
 */
export function sessionScreen(at: {
  question: Question | null;
  help: boolean;
  filtering: boolean;
  viewing: boolean;
  search: { typing: boolean } | null;
}): { screen: Screen; asking: Screen | null; searchScreen: Screen | null } {
  const asking: Screen | null = at.question ? questionScreen(at.question) : null;
  const searchScreen: Screen | null = at.search ? (at.search.typing ? 'search' : 'found') : null;
  const screen: Screen =
    asking ?? (at.help ? 'help' : at.filtering ? 'filter' : at.viewing ? (searchScreen ?? 'viewer') : 'inbox');
  return { screen, asking, searchScreen };
}

/**
 * The rows the inbox or viewer gets: the terminal's less the header, what is above the footer (a
 * question, an input, or the status, which may wrap) and the footer; the inbox is told its viewport.
 */
export function useContentHeight(
  props: Pick<SessionViewProps, 'session' | 'columns' | 'rows' | 'local'>,
  inbox: Pick<InboxHandle, 'dispatch'>,
  bottom: { question: Question | null; input: boolean; status: StatusMessage | null },
): number {
  const { session, columns, rows } = props;
  const bottomRows = bottomHeight({ ...bottom, email: session.email, columns });
  const height = Math.max(1, rows - headerHeight(session.email, columns, props.local) - bottomRows - 1);
  useEffect(() => {
    inbox.dispatch({ type: 'viewport', rows: Math.max(1, height - 1) });
  }, [height, inbox.dispatch]);
  return height;
}

/**
 * `n`: a new address. While the service still takes mail for this one (it decides what is live: our
 * countdown may be in the wrong zone), it asks first, saying how long this one keeps working.
 */
export function newAddressCommand(
  props: Pick<SessionViewProps, 'provider' | 'session' | 'onNewAddress'>,
  live: boolean,
  ask: (question: Question) => void,
): () => void {
  return () =>
    live
      ? ask({ kind: 'leave', lasts: keepsWorking(props.provider.info, props.session.expiresAt !== null) })
      : props.onNewAddress();
}
