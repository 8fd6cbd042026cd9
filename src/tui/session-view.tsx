/**
 * One live address: the header, the inbox or the viewer, the `?` help, the delete and leave questions,
 * the filter input, the status line and the footer. Polling and body fetching live in hooks; list and
 * viewer state in reducers; this component only routes between them.
 */
import { Box, Text } from 'ink';
import TextInput from 'ink-text-input';
import React, { useEffect, useRef, useState } from 'react';
import { isApiError } from '../api/errors';
import type { TempMailApi } from '../api/types';
import { safeLine } from '../core/safe-text';
import type { MessageSummary, Session } from '../core/types';
import { ConfirmLine, Footer, StatusLine } from './common/chrome';
import { HelpScreen } from './common/help-screen';
import { useKeys } from './common/use-keys';
import { describeError } from './errors';
import { subjectLabel } from './format';
import { InboxScreen } from './inbox/inbox-screen';
import { useInbox } from './inbox/use-inbox';
import { headerHeight, SessionHeader } from './inbox/session-header';
import type { Screen } from './keymap';
import type { LocalServiceInfo, StatusMessage } from './types';
import { useMessageCache } from './viewer/use-message-cache';
import { ViewerScreen } from './viewer/viewer-screen';

export interface SessionViewProps {
  api: TempMailApi;
  session: Session;
  intervalMs: number;
  bell: boolean;
  clock: () => number;
  local?: LocalServiceInfo;
  columns: number;
  /** Lines the app may draw. */
  rows: number;
  /** False while the picker is shown on top: polling goes on, keys and drawing stop. */
  active: boolean;
  ringBell: () => void;
  copy: (text: string) => Promise<string>;
  onNewAddress: () => void;
  onQuit: () => void;
}

type View = { kind: 'inbox' } | { kind: 'viewer'; message: MessageSummary };
type Question = { kind: 'delete'; message: MessageSummary } | { kind: 'leave' };

/** The session screens. */
export function SessionView(props: SessionViewProps) {
  const { api, session, columns, rows, active } = props;
  const inbox = useInbox({ api, session, intervalMs: props.intervalMs, clock: props.clock });
  const cache = useMessageCache(api, session.token);
  const [view, setView] = useState<View>({ kind: 'inbox' });
  const [help, setHelp] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);
  const [filtering, setFiltering] = useState(false);
  const [filterText, setFilterText] = useState('');
  const [status, setStatus] = useState<StatusMessage | null>(null);
  // Deletes and copies finish after the user may have left this address: no state update then.
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const info = (text: string) => setStatus({ text, kind: 'info' });
  const fail = (text: string) => setStatus({ text, kind: 'error' });

  // New mail: a line, and the bell unless it is switched off.
  const { arrivals, lastArrived } = inbox.state;
  useEffect(() => {
    if (arrivals === 0) return;
    info(`${lastArrived} new message${lastArrived === 1 ? '' : 's'}`);
    if (props.bell) props.ringBell();
  }, [arrivals]); // eslint-disable-line react-hooks/exhaustive-deps

  const height = Math.max(1, rows - headerHeight(session.email, columns, props.local) - 2);
  useEffect(() => inbox.dispatch({ type: 'viewport', rows: Math.max(1, height - 1) }), [height]); // eslint-disable-line react-hooks/exhaustive-deps

  // The service decides what is live (our countdown may be in the wrong zone): until it says expired, ask.
  const live = inbox.poll.phase !== 'stopped';
  const screen: Screen = question ? 'confirm' : help ? 'help' : filtering ? 'filter' : view.kind;

  const open = (m: MessageSummary) => {
    inbox.dispatch({ type: 'opened', id: m.id });
    cache.load(m.id);
    setStatus(null);
    setView({ kind: 'viewer', message: m });
  };

  const remove = async (m: MessageSummary) => {
    info('Deleting…');
    try {
      await api.deleteMail(session.token, m.id);
    } catch (error) {
      // Already gone on the service is what the user wanted anyway.
      if (!(isApiError(error) && error.kind === 'not_found')) {
        if (mounted.current) fail(`Not deleted: ${describeError(error)}`);
        return;
      }
    }
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
    { isActive: active && question !== null },
  );
  useKeys(
    'filter',
    {
      submit: () => setFiltering(false),
      back: () => {
        setFiltering(false);
        setFilterText('');
        inbox.dispatch({ type: 'filter', text: '' });
      },
    },
    { isActive: active && filtering && !question },
  );

  if (!active) return null;

  const newAddress = () => (live ? setQuestion({ kind: 'leave' }) : props.onNewAddress());
  const copyAddress = () => {
    info('Copying…');
    props.copy(session.email).then(
      (text) => mounted.current && info(safeLine(text, 300)),
      (error: unknown) => mounted.current && fail(describeError(error)),
    );
  };

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
        onBack={() => setView({ kind: 'inbox' })}
        onDelete={() => setQuestion({ kind: 'delete', message: m })}
        onReload={() => cache.load(m.id, true)}
        onHelp={() => setHelp(true)}
        onLink={(n, url) => {
          info(`Link ${n}: ${url}`);
          props.copy(url).then(
            (text) => mounted.current && info(`Link ${n}: ${url} (${safeLine(text, 120)})`),
            () => undefined,
          );
        }}
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
        intervalMs={props.intervalMs}
        clock={props.clock}
        local={props.local}
        isActive={screen === 'inbox'}
        onOpen={open}
        onDelete={(m) => setQuestion({ kind: 'delete', message: m })}
        onRefresh={() => {
          // The header already says "checking…"; the status line speaks only when r can't check now.
          if (inbox.refresh()) setStatus(null);
          else info(refreshRefusal(inbox.poll.phase, inbox.poll.rateLimited));
        }}
        onNewAddress={newAddress}
        onCopy={copyAddress}
        onFilter={() => setFiltering(true)}
        onHelp={() => setHelp(true)}
        onQuit={props.onQuit}
      />
    );
  }

  let bottom: React.ReactNode;
  if (question?.kind === 'delete') {
    bottom = <ConfirmLine question={`Delete "${subjectLabel(question.message.subject)}"?`} columns={columns} />;
  } else if (question?.kind === 'leave') {
    bottom = <ConfirmLine question={`Leave ${session.email} for a new address? It keeps working until it expires.`} columns={columns} />;
  } else if (filtering) {
    bottom = (
      <Box>
        <Text>/</Text>
        <TextInput
          value={filterText}
          focus={screen === 'filter'}
          placeholder="filter by sender or subject"
          onChange={(text) => {
            const clean = safeLine(text, 200);
            setFilterText(clean);
            inbox.dispatch({ type: 'filter', text: clean });
          }}
        />
      </Box>
    );
  } else {
    bottom = <StatusLine status={status} columns={columns} />;
  }

  return (
    <Box flexDirection="column" width={columns}>
      <SessionHeader
        session={session}
        poll={inbox.poll}
        intervalMs={props.intervalMs}
        clock={props.clock}
        columns={columns}
        local={props.local}
      />
      {/* Hidden, not unmounted, under the help: the viewer keeps its scroll position and rendered body. */}
      <Box display={help ? 'none' : 'flex'} flexDirection="column">
        {content}
      </Box>
      {help ? (
        <HelpScreen screen={view.kind} columns={columns} rows={height} onClose={() => setHelp(false)} isActive={screen === 'help'} />
      ) : null}
      {bottom}
      <Footer screen={screen} columns={columns} />
    </Box>
  );
}

function refreshRefusal(phase: string, rateLimited: boolean): string {
  if (phase === 'stopped') return 'Polling stopped: this address is no longer live. Press n for a new one.';
  if (rateLimited) return 'Rate limited: waiting as the service asked.';
  return 'Already checking…';
}
