/**
 * One live address: the header, the inbox or the viewer, the `?` help, the questions (delete, leave,
 * forget, which attachment, replace a file), the filter and search inputs, the status line and the
 * footer. Polling, body and source fetching and read marks live in hooks, and what the session does as
 * mail arrives in use-session-effects.ts; list and viewer state in reducers; copying, opening links and
 * saving in session-actions.ts; reading from message to message (J/K, the view kept, the search) in
 * use-reading.ts; this component only routes between them.
 */
import { Box } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { Footer } from '../widgets/chrome';
import { sessionActions } from './session-actions';
import type { Question } from './session-bottom';
import {
  type SessionParts,
  type SessionViewProps,
  sessionBottom,
  sessionHeader,
  sessionHelp,
  sessionInbox,
  sessionViewer,
} from './session-screens';
import { useFaded, useStatus } from './session-status';
import { useReading } from './use-reading';
import { removeMessage, useSessionKeys } from './use-session-keys';
import { useSessionEffects } from './use-session-effects';
import { newAddressCommand, sessionScreen, useContentHeight, useFilter, useSessionData } from './use-session-view';
import { useSample } from '../sample/use-sample';
import { preloadReader } from '../viewer/lazy-reader';

export type { SessionViewProps };

// A message without attachments: the viewer's footer leaves out `a`.
const NO_ATTACHMENTS = ['save'] as const;

/** The session screens. */
export function SessionView(props: SessionViewProps) {
  const { provider: api, session, columns, active } = props;
  const { marks, inbox, kept, cache, sources } = useSessionData(props);
  const [help, setHelp] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);
  const { filtering, setFiltering, filterText, setFilterText, clearFilter } = useFilter(inbox);
  const { status, info, note, fail, clear } = useStatus(props.clock);
  const { actions, mounted } = useActions(props, { info, note, fail }, setQuestion);
  const reading = useReading({ api, session, inbox, cache, sources, status: { info, clear } });
  const { view } = reading;

  const { unread } = inbox.state;
  useSessionEffects({
    inbox,
    cache,
    marks,
    kept,
    status: { info, note, fail },
    ring: props.bell ? props.ringBell : null,
  });
  const sendSample = useSample({
    email: session.email,
    local: props.local,
    where: props.where ?? api.info.label,
    status: { info, note, fail },
    mounted,
  });

  // Above the footer: a question, the filter or search input, or the status (fading; a long one wraps).
  const shownStatus = useFaded(status, props.clock) ?? props.notice ?? null;
  const typingSearch = Boolean(reading.search?.typing && view.kind === 'viewer');
  const height = useContentHeight(props, inbox, { question, input: filtering || typingSearch, status: shownStatus });

  const { screen, asking, searchScreen } = sessionScreen({
    question,
    help,
    filtering,
    viewing: view.kind === 'viewer',
    search: reading.search,
  });

  const saveFrom = useSessionKeys({
    active,
    screen,
    asking,
    question,
    setQuestion,
    filtering,
    setFiltering,
    clearFilter,
    actions,
    reading,
    info,
    providerId: api.info.id,
    onNewAddress: props.onNewAddress,
    onForget: props.onForget,
    remove: (m) => removeMessage({ actions, mounted, inbox, cache, sources, reading, info }, m),
  });

  if (!active) return null;

  const newAddress = newAddressCommand(props, inbox.live, setQuestion);

  // A message without attachments has nothing for `a` to save: its footer leaves it out.
  const opened = view.kind === 'viewer' ? cache.get(view.message.id) : undefined;
  const viewerHidden =
    opened?.status === 'ready' && opened.message.attachments.length === 0 ? NO_ATTACHMENTS : undefined;
  const parts: SessionParts = {
    props,
    screen,
    height,
    reading,
    inbox,
    cache,
    sources,
    actions,
    kept,
    setQuestion,
    setHelp,
    setFiltering,
    setFilterText,
    status: { info, note, clear },
    saveFrom,
    sendSample,
    newAddress,
    clearFilter: filterText ? clearFilter : undefined,
  };
  const content = view.kind === 'viewer' ? sessionViewer(parts, view.message) : sessionInbox(parts);
  const bottom = sessionBottom(parts, { question, filtering, filterText, typingSearch, shownStatus });

  return (
    <Box flexDirection="column" width={columns}>
      {sessionHeader(parts, view.kind === 'viewer' ? unread.size : undefined)}
      {/* Hidden, not unmounted, under the help: the viewer keeps its scroll position and rendered body. */}
      <Box display={help ? 'none' : 'flex'} flexDirection="column">
        {content}
      </Box>
      {help
        ? sessionHelp(parts, view.kind === 'viewer' ? (searchScreen === 'found' ? 'found' : 'viewer') : 'inbox')
        : null}
      {bottom}
      <Footer screen={screen} columns={columns} hide={viewerHidden} />
    </Box>
  );
}

/**
 * The session's actions (session-actions.ts), bound to this view: results that arrive after it is gone
 * (`mounted` false) are dropped. Loads the message reader meanwhile.
 */
function useActions(
  props: SessionViewProps,
  status: { info: (text: string) => void; note: (text: string) => void; fail: (text: string) => void },
  ask: (question: Question) => void,
) {
  // Deletes, copies and downloads finish after the user may have left this address: no state update then.
  const mounted = useRef(true);
  const saving = useRef(false);
  useEffect(() => {
    // The message reader is not loaded at start (the picker does not need it); by the first open it is.
    preloadReader();
    return () => {
      mounted.current = false;
    };
  }, []);
  const actions = sessionActions({
    api: props.provider,
    session: props.session,
    copy: props.copy,
    openLink: props.openLink,
    downloadDir: props.downloadDir,
    noDownload: props.noDownload,
    info: status.info,
    progress: status.note,
    fail: status.fail,
    mounted,
    saving,
    clock: props.clock,
    ask,
  });
  return { actions, mounted };
}
