/**
 * One live address: the header, the inbox or the viewer, the `?` help, the questions (delete, leave,
 * forget, which attachment, replace a file), the filter input, the status line and the footer. Polling,
 * body fetching and prefetching live in hooks; list and viewer state in reducers; copying, opening links
 * and saving attachments in session-actions.ts; this component only routes between them.
 */
import { Box } from 'ink';
import React, { useEffect, useRef, useState } from 'react';
import type { MailProvider } from '../../client/client-types';
import type { OpenResult } from '../../platform/browser';
import type { MessageSummary, Session } from '../../model/mail-types';
import { Footer, StatusLine } from '../widgets/chrome';
import { HelpScreen } from '../widgets/help-screen';
import { useKeys } from '../widgets/use-keys';
import { subjectLabel } from '../wording/display-format';
import { InboxScreen } from '../inbox/inbox-screen';
import { headerHeight, SessionHeader } from '../inbox/session-header';
import { formatZoneError } from '../../platform/time';
import { useInbox } from '../inbox/use-inbox';
import type { Screen } from '../keymap/keymap';
import { sessionActions } from './session-actions';
import { questionScreen, QuestionLine, FilterLine, type Question } from './session-bottom';
import { refreshRefusal } from '../wording/status-text';
import type { LocalServiceInfo } from '../shell/shell-types';
import type { StatusMessage } from '../wording/status-text';
import { useSaveQuestions } from './use-save-questions';
import { useForgetAnswer } from '../saved/forget-question';
import { loadedReader, preloadReader } from '../viewer/lazy-reader';
import { badgeOf } from '../viewer/mark';
import { useMessageCache } from '../viewer/use-message-cache';
import { ViewerScreen } from '../viewer/viewer-screen';

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

type View = { kind: 'inbox' } | { kind: 'viewer'; message: MessageSummary };

// Bodies fetched ahead of time, so the list can show their codes: the newest unread few.
const PREFETCH_COUNT = 5;
// A message without attachments: the viewer's footer leaves out `a`.
const NO_ATTACHMENTS = ['save'] as const;

/** The session screens. */
export function SessionView(props: SessionViewProps) {
  const { provider: api, session, columns, rows, active } = props;
  const inbox = useInbox({ api, session, intervalMs: props.intervalMs, clock: props.clock, onTokenAnswer: props.onTokenAnswer });
  const cache = useMessageCache(api, session);
  const [view, setView] = useState<View>({ kind: 'inbox' });
  const [help, setHelp] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);
  const [filtering, setFiltering] = useState(false);
  const [filterText, setFilterText] = useState('');
  const [status, setStatus] = useState<StatusMessage | null>(null);
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

  const info = (text: string) => setStatus({ text, kind: 'info' });
  const fail = (text: string) => setStatus({ text, kind: 'error' });
  const actions = sessionActions({
    api,
    session,
    copy: props.copy,
    openLink: props.openLink,
    downloadDir: props.downloadDir,
    info,
    fail,
    mounted,
    saving,
    clock: props.clock,
    ask: setQuestion,
  });

  // New mail: a line, and the bell unless it is switched off.
  const { arrivals, lastArrived, all, unread } = inbox.state;
  useEffect(() => {
    if (arrivals === 0) return;
    info(`${lastArrived} new message${lastArrived === 1 ? '' : 's'}`);
    if (props.bell) props.ringBell();
  }, [arrivals]); // eslint-disable-line react-hooks/exhaustive-deps

  // Mail showed the service's times off by a zone: say so once, and how to set it right.
  const zoneError = inbox.zoneErrorMs;
  useEffect(() => {
    if (zoneError !== 0) info(`The service's times read ${formatZoneError(zoneError)} off; corrected from arriving mail (see --server-tz)`);
  }, [zoneError]); // eslint-disable-line react-hooks/exhaustive-deps

  // The newest unread bodies, fetched one at a time in the background (the cache never asks twice).
  useEffect(() => {
    cache.prefetch(all.filter((m) => unread.has(m.id)).slice(0, PREFETCH_COUNT).map((m) => m.id));
  }, [all, unread, cache.prefetch]); // eslint-disable-line react-hooks/exhaustive-deps

  const height = Math.max(1, rows - headerHeight(session.email, columns, props.local) - 2);
  useEffect(() => inbox.dispatch({ type: 'viewport', rows: Math.max(1, height - 1) }), [height]); // eslint-disable-line react-hooks/exhaustive-deps

  // The service decides what is live (our countdown may be in the wrong zone): until it says expired, ask.
  const live = inbox.poll.phase !== 'stopped';
  const asking: Screen | null = question ? questionScreen(question) : null;
  const screen: Screen = asking ?? (help ? 'help' : filtering ? 'filter' : view.kind);

  const open = (m: MessageSummary) => {
    inbox.dispatch({ type: 'opened', id: m.id });
    cache.load(m.id);
    setStatus(null);
    setView({ kind: 'viewer', message: m });
  };

  const remove = async (m: MessageSummary) => {
    if (!(await actions.deleteMessage(m.id))) return;
    if (!mounted.current) return;
    inbox.dispatch({ type: 'removed', id: m.id });
    cache.evict(m.id);
    setView((v) => (v.kind === 'viewer' && v.message.id === m.id ? { kind: 'inbox' } : v));
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

  if (!active) return null;

  const newAddress = () => (live ? setQuestion({ kind: 'leave' }) : props.onNewAddress());

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
        columns={columns}
        rows={height}
        isActive={screen === 'viewer'}
        onBack={() => {
          // What the viewer said (no links, copied, ...) was about that message.
          setStatus(null);
          setView({ kind: 'inbox' });
        }}
        onDelete={() => setQuestion({ kind: 'delete', message: m })}
        onReload={() => cache.load(m.id, true)}
        onHelp={() => setHelp(true)}
        onCopy={actions.copyText}
        onOpenLink={actions.openUrl}
        onSave={(attachments) => saveFrom(m, attachments)}
        onStatus={info}
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
        isActive={screen === 'inbox'}
        badge={(m) => {
          const entry = cache.get(m.id);
          if (entry?.status === 'ready') return badgeOf(entry.mark);
          // Not fetched (only the newest unread few are): a code in the subject needs no body.
          const code = loadedReader()?.codeInSubject(m.subject);
          return code ? `code ${code}` : '';
        }}
        onOpen={open}
        onDelete={(m) => setQuestion({ kind: 'delete', message: m })}
        onRefresh={() => {
          // The header already says "checking…"; the status line speaks only when r can't check now.
          if (inbox.refresh()) setStatus(null);
          else info(refreshRefusal(inbox.poll.phase, inbox.poll.rateLimited, inbox.poll.error));
        }}
        onNewAddress={newAddress}
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
  } else bottom = <StatusLine status={status ?? props.notice ?? null} columns={columns} />;

  return (
    <Box flexDirection="column" width={columns}>
      <SessionHeader
        session={session}
        zoneErrorMs={inbox.zoneErrorMs}
        poll={inbox.poll}
        intervalMs={props.intervalMs}
        clock={props.clock}
        columns={columns}
        local={props.local}
        where={props.where}
        push={inbox.push}
      />
      {/* Hidden, not unmounted, under the help: the viewer keeps its scroll position and rendered body. */}
      <Box display={help ? 'none' : 'flex'} flexDirection="column">
        {content}
      </Box>
      {help ? (
        <HelpScreen screen={view.kind} columns={columns} rows={height} onClose={() => setHelp(false)} isActive={screen === 'help'} />
      ) : null}
      {bottom}
      <Footer screen={screen} columns={columns} hide={viewerHidden} />
    </Box>
  );
}
