/**
 * One live address: the header, the inbox or the viewer, the `?` help, the questions (delete, leave,
 * forget, which attachment, replace a file), the filter and search inputs, the status line and the
 * footer. Polling, body and source fetching and read marks live in hooks, and what the session does as
 * mail arrives in use-session-effects.ts; list and viewer state in reducers; copying, opening links and
 * saving in session-actions.ts; reading from message to message (J/K, the view kept, the search) in
 * use-reading.ts; this component only routes between them.
 */
import { Box } from 'ink';
import type React from 'react';
import { useEffect, useRef, useState } from 'react';
import type { MailProvider } from '../../client/client-types';
import type { OpenResult } from '../../platform/browser';
import type { MessageSummary, Session } from '../../model/mail-types';
import { Footer, StatusLine } from '../widgets/chrome';
import { HelpScreen } from '../widgets/help-screen';
import { useKeys } from '../widgets/use-keys';
import { subjectLabel } from '../wording/display-format';
import { InboxScreen } from '../inbox/inbox-screen';
import { thisMachineHost } from '../inbox/empty-lines';
import { headerHeight, LiveSessionHeader } from '../inbox/session-header';
import { useInbox } from '../inbox/use-inbox';
import { useReadMarks, type ReadMarksConfig } from '../inbox/use-read-marks';
import type { Screen } from '../keymap/keymap';
import { SearchLine } from '../search/search-line';
import { sessionActions } from './session-actions';
import { bottomHeight, questionScreen, QuestionLine, FilterLine, type Question } from './session-bottom';
import { useFaded, useStatus } from './session-status';
import { refreshRefusal } from '../wording/status-text';
import type { LocalServiceInfo } from '../shell/shell-types';
import type { StatusMessage } from '../wording/status-text';
import { useReading } from './use-reading';
import { useSaveQuestions } from './use-save-questions';
import { useSessionEffects } from './use-session-effects';
import { useSample } from '../sample/use-sample';
import { useForgetAnswer } from '../saved/forget-question';
import { preloadReader } from '../viewer/lazy-reader';
import type { AddressMarks } from './mark-book';
import { rowMarks } from './row-marks';
import { useMessageCache } from '../viewer/use-message-cache';
import { useMessageSources } from '../source/use-message-source';
import { ViewerScreen } from '../viewer/viewer-screen';
import { keepsWorking } from '../wording/expiry-text';

export interface SessionViewProps {
  /** The provider the address lives on. */
  provider: MailProvider;
  /** Its name for the header ("mail.tm"); none for the in-process service, whose own line says it. */
  where?: string;
  session: Session;
  intervalMs: number;
  bell: boolean;
  /** Where `a` saves attachments; unset means saving is refused with a message. */
  downloadDir?: string;
  /** What `a` says instead where nothing is saved (over SSH: what to do instead). */
  noDownload?: string;
  /** Where the opened messages of each address are remembered; without it, only for this run. */
  readMarks?: ReadMarksConfig;
  /** The marks (code, link) of this address's messages read so far in this run (mark-book.ts). */
  marks: AddressMarks;
  clock: () => number;
  local?: LocalServiceInfo;
  columns: number;
  /** Lines the app may draw. */
  rows: number;
  /** False while the picker or switcher is shown on top: polling goes on, keys and drawing stop. */
  active: boolean;
  ringBell: () => void;
  copy: (text: string) => Promise<string>;
  openLink: (url: string) => Promise<OpenResult>;
  /** Said on the status line when this view has nothing of its own to say (e.g. "Forgot ..."). */
  notice?: StatusMessage | null;
  onNewAddress: () => void;
  /** `s`: the saved-address switcher. */
  onSwitch: () => void;
  /** `x`, confirmed: forget this address (the app then shows the picker); `there`: delete it at its provider too. */
  onForget: (there: boolean) => void;
  /** The service knows this address's token (first good check), or refused it before its expiry. */
  onTokenAnswer?: (known: boolean) => void;
  onQuit: () => void;
}

// A message without attachments: the viewer's footer leaves out `a`.
const NO_ATTACHMENTS = ['save'] as const;

/** The session screens. */
export function SessionView(props: SessionViewProps) {
  const { provider: api, session, columns, rows, active } = props;
  const marks = useReadMarks(props.readMarks, session);
  const inbox = useInbox({ api, session, intervalMs: props.intervalMs, clock: props.clock, onTokenAnswer: props.onTokenAnswer, read: marks.initial });
  const kept = props.marks;
  const cache = useMessageCache(api, session, undefined, kept.set);
  const sources = useMessageSources(api, session);
  const [help, setHelp] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);
  const [filtering, setFiltering] = useState(false);
  const [filterText, setFilterText] = useState('');
  const { status, info, note, fail, clear } = useStatus(props.clock);
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
    api,
    session,
    copy: props.copy,
    openLink: props.openLink,
    downloadDir: props.downloadDir,
    noDownload: props.noDownload,
    info,
    progress: note,
    fail,
    mounted,
    saving,
    clock: props.clock,
    ask: setQuestion,
  });
  const reading = useReading({ api, session, inbox, cache, sources, status: { info, clear } });
  const { view } = reading;

  const { unread } = inbox.state;
  useSessionEffects({ inbox, cache, marks, kept, status: { info, note, fail }, ring: props.bell ? props.ringBell : null });
  const sendSample = useSample({ email: session.email, local: props.local, where: props.where ?? api.info.label, status: { info, note, fail }, mounted });

  // Above the footer: a question, the filter or search input, or the status (fading; a long one wraps).
  const shownStatus = useFaded(status, props.clock) ?? props.notice ?? null;
  const typingSearch = Boolean(reading.search?.typing && view.kind === 'viewer');
  const bottomRows = bottomHeight({ question, email: session.email, input: filtering || typingSearch, status: shownStatus, columns });
  const height = Math.max(1, rows - headerHeight(session.email, columns, props.local) - bottomRows - 1);
  useEffect(() => {
    inbox.dispatch({ type: 'viewport', rows: Math.max(1, height - 1) });
  }, [height, inbox.dispatch]);

  // The service decides what is live (our countdown may be in the wrong zone): until it says expired, ask.
  const { live } = inbox;
  const asking: Screen | null = question ? questionScreen(question) : null;
  const searchScreen: Screen | null = reading.search ? (reading.search.typing ? 'search' : 'found') : null;
  const screen: Screen = asking ?? (help ? 'help' : filtering ? 'filter' : view.kind === 'viewer' ? (searchScreen ?? 'viewer') : 'inbox');

  const remove = async (m: MessageSummary) => {
    if (!(await actions.deleteMessage(m.id))) return;
    if (!mounted.current) return;
    inbox.dispatch({ type: 'removed', id: m.id });
    cache.evict(m.id);
    sources.evict(m.id);
    reading.closeIf(m.id);
    info(`Deleted "${subjectLabel(m.subject)}"`);
  };

  useKeys(
    'confirm',
    {
      yes: () => {
        const q = question;
        setQuestion(null);
        if (q?.kind === 'delete') void remove(q.message);
        if (q?.kind === 'leave') props.onNewAddress();
      },
      no: () => {
        setQuestion(null);
        info('Cancelled');
      },
    },
    { isActive: active && asking === 'confirm' && question?.kind !== 'forget' },
  );
  // Forgetting: y/n, or (an address its provider can delete) y, D or no.
  useForgetAnswer(api.info.id, active && question?.kind === 'forget', (choice) => {
    setQuestion(null);
    if (choice === 'no') info('Cancelled');
    else props.onForget(choice === 'there');
  });
  // Which attachment, and whether to replace a file of the same name.
  const saveFrom = useSaveQuestions({ question, setQuestion, actions, info, screen, active });
  // Esc in the filter input, or in the list while a filter is set.
  const clearFilter = () => {
    setFiltering(false);
    setFilterText('');
    inbox.dispatch({ type: 'filter', text: '' });
  };
  useKeys(
    'filter',
    {
      submit: () => setFiltering(false),
      back: clearFilter,
    },
    { isActive: active && filtering && !question },
  );
  useKeys('search', { submit: reading.keepSearch, back: reading.clearSearch }, { isActive: active && screen === 'search' });

  if (!active) return null;

  const newAddress = () => (live ? setQuestion({ kind: 'leave', lasts: keepsWorking(api.info, session.expiresAt !== null) }) : props.onNewAddress());

  // A message without attachments has nothing for `a` to save: its footer leaves it out.
  const opened = view.kind === 'viewer' ? cache.get(view.message.id) : undefined;
  const viewerHidden = opened?.status === 'ready' && opened.message.attachments.length === 0 ? NO_ATTACHMENTS : undefined;
  let content: React.ReactNode;
  if (view.kind === 'viewer') {
    const m = view.message;
    content = (
      <ViewerScreen
        key={m.id}
        summary={m}
        entry={cache.get(m.id)}
        source={sources.get(m.id)}
        sourcesAvailable={sources.available}
        mode={reading.mode}
        onMode={reading.setMode}
        search={reading.search}
        columns={columns}
        rows={height}
        isActive={screen === 'viewer' || screen === 'found'}
        onBack={reading.close}
        onDelete={() => setQuestion({ kind: 'delete', message: m })}
        onReload={() => cache.load(m.id, true)}
        onReloadSource={() => void sources.load(m.id, true).catch(() => undefined)}
        onHelp={() => setHelp(true)}
        onCopy={actions.copyText}
        onOpenLink={actions.openUrl}
        onSave={(attachments) => saveFrom(m, attachments)}
        onSaveMessage={() => actions.saveMessage(m, () => reading.sourceOf(m.id))}
        onStep={reading.step}
        onSearchStart={reading.startSearch}
        onSearchClear={reading.clearSearch}
        onSearchCount={reading.setSearchCount}
        onStatus={(text, sticky) => (sticky ? note(text) : info(text))}
      />
    );
  } else {
    content = (
      <InboxScreen
        state={inbox.state}
        dispatch={inbox.dispatch}
        address={session.email}
        columns={columns}
        rows={height}
        intervalMs={live ? props.intervalMs : null}
        clock={props.clock}
        local={props.local}
        nearHost={props.local ? undefined : thisMachineHost(api)}
        isActive={screen === 'inbox'}
        {...rowMarks(cache, kept)}
        onOpen={reading.open}
        onDelete={(m) => setQuestion({ kind: 'delete', message: m })}
        onRefresh={() => {
          // The header says "checking…" (or, at once, the new "last checked"); the status line speaks
          // only when r can't check now.
          if (inbox.refresh()) clear();
          else {
            const poll = inbox.poll.get();
            info(refreshRefusal(poll.phase, poll.rateLimited, poll.error));
          }
        }}
        onNewAddress={newAddress}
        onSample={sendSample}
        onCopy={() => actions.copyText('address', session.email)}
        onSwitch={props.onSwitch}
        onForget={() => setQuestion({ kind: 'forget', provider: api.info.id })}
        onFilter={() => setFiltering(true)}
        onClearFilter={filterText ? clearFilter : undefined}
        onHelp={() => setHelp(true)}
        onQuit={props.onQuit}
      />
    );
  }

  let bottom: React.ReactNode;
  if (question) bottom = <QuestionLine question={question} email={session.email} columns={columns} />;
  else if (filtering) {
    bottom = (
      <FilterLine
        value={filterText}
        focus={screen === 'filter'}
        onChange={(clean) => {
          setFilterText(clean);
          inbox.dispatch({ type: 'filter', text: clean });
        }}
      />
    );
  } else if (typingSearch && reading.search) {
    bottom = <SearchLine value={reading.search.pattern} focus={screen === 'search'} count={reading.searchCount} columns={columns} onChange={reading.typeSearch} />;
  } else bottom = <StatusLine status={shownStatus} columns={columns} />;

  return (
    <Box flexDirection="column" width={columns}>
      <LiveSessionHeader
        session={session}
        zoneErrorMs={inbox.zoneErrorMs}
        poll={inbox.poll}
        intervalMs={props.intervalMs}
        clock={props.clock}
        columns={columns}
        local={props.local}
        where={props.where}
        push={inbox.push}
        unread={view.kind === 'viewer' ? unread.size : undefined}
      />
      {/* Hidden, not unmounted, under the help: the viewer keeps its scroll position and rendered body. */}
      <Box display={help ? 'none' : 'flex'} flexDirection="column">
        {content}
      </Box>
      {help ? (
        <HelpScreen
          screen={view.kind === 'viewer' ? (searchScreen === 'found' ? 'found' : 'viewer') : 'inbox'}
          columns={columns}
          rows={height}
          onClose={() => setHelp(false)}
          isActive={screen === 'help'}
        />
      ) : null}
      {bottom}
      <Footer screen={screen} columns={columns} hide={viewerHidden} />
    </Box>
  );
}
