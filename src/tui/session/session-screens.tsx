/**
 * What the session view draws in its middle and above its footer: the viewer or the inbox, with their
 * callbacks wired to the session's hooks, and the bottom line (a question, the filter or search input,
 * or the status). Plain functions of the session's parts, so the view itself only routes.
 */
import type React from 'react';
import type { MailProvider } from '../../client/client-types';
import type { OpenResult } from '../../platform/browser';
import type { AttachmentInfo, MessageSummary, Session } from '../../model/mail-types';
import type { ReadMarksConfig } from '../inbox/use-read-marks';
import type { LocalServiceInfo } from '../shell/shell-types';
import { thisMachineHost } from '../inbox/empty-lines';
import { LiveSessionHeader } from '../inbox/session-header';
import { HelpScreen } from '../widgets/help-screen';
import { InboxScreen } from '../inbox/inbox-screen';
import type { InboxHandle } from '../inbox/use-inbox';
import type { Screen } from '../keymap/keymap';
import { SearchLine } from '../search/search-line';
import type { SourceCache } from '../source/use-message-source';
import type { MessageCache } from '../viewer/use-message-cache';
import { ViewerScreen } from '../viewer/viewer-screen';
import { StatusLine } from '../widgets/chrome';
import { refreshRefusal, type StatusMessage } from '../wording/status-text';
import type { AddressMarks } from './mark-book';
import { rowMarks } from './row-marks';
import type { SessionActions } from './session-actions';
import { FilterLine, type Question, QuestionLine } from './session-bottom';
import type { Reading } from './use-reading';

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

/** The session's hooks and state, as the screens are wired to them. */
export interface SessionParts {
  props: SessionViewProps;
  screen: Screen;
  /** Rows between the header and the bottom line. */
  height: number;
  reading: Reading;
  inbox: InboxHandle;
  cache: MessageCache;
  sources: SourceCache;
  actions: SessionActions;
  kept: AddressMarks;
  setQuestion: (question: Question | null) => void;
  setHelp: (on: boolean) => void;
  setFiltering: (on: boolean) => void;
  setFilterText: (text: string) => void;
  status: { info: (text: string) => void; note: (text: string) => void; clear: () => void };
  saveFrom: (message: MessageSummary, attachments: readonly AttachmentInfo[]) => void;
  sendSample: () => void;
  newAddress: () => void;
  /** Esc in the list clears the filter, when one is set. */
  clearFilter: (() => void) | undefined;
}

/** The viewer on message `m`. */
export function sessionViewer(p: SessionParts, m: MessageSummary): React.ReactNode {
  const { reading, cache, sources, actions, status } = p;
  return (
    <ViewerScreen
      key={m.id}
      summary={m}
      entry={cache.get(m.id)}
      source={sources.get(m.id)}
      sourcesAvailable={sources.available}
      mode={reading.mode}
      onMode={reading.setMode}
      search={reading.search}
      columns={p.props.columns}
      rows={p.height}
      isActive={p.screen === 'viewer' || p.screen === 'found'}
      onBack={reading.close}
      onDelete={() => p.setQuestion({ kind: 'delete', message: m })}
      onReload={() => cache.load(m.id, true)}
      onReloadSource={() => void sources.load(m.id, true).catch(() => undefined)}
      onHelp={() => p.setHelp(true)}
      onCopy={actions.copyText}
      onOpenLink={actions.openUrl}
      onSave={(attachments) => p.saveFrom(m, attachments)}
      onSaveMessage={() => actions.saveMessage(m, () => reading.sourceOf(m.id))}
      onStep={reading.step}
      onSearchStart={reading.startSearch}
      onSearchClear={reading.clearSearch}
      onSearchCount={reading.setSearchCount}
      onStatus={(text, sticky) => (sticky ? status.note(text) : status.info(text))}
    />
  );
}

/** The inbox. */
export function sessionInbox(p: SessionParts): React.ReactNode {
  const { props, inbox, status } = p;
  const { session, provider: api } = props;
  return (
    <InboxScreen
      state={inbox.state}
      dispatch={inbox.dispatch}
      address={session.email}
      columns={props.columns}
      rows={p.height}
      intervalMs={inbox.live ? inbox.intervalMs : null}
      clock={props.clock}
      local={props.local}
      nearHost={props.local ? undefined : thisMachineHost(api)}
      isActive={p.screen === 'inbox'}
      {...rowMarks(p.cache, p.kept)}
      onOpen={p.reading.open}
      onDelete={(m) => p.setQuestion({ kind: 'delete', message: m })}
      onRefresh={() => {
        // The header says "checking…" (or, at once, the new "last checked"); the status line speaks
        // only when r can't check now.
        if (inbox.refresh()) status.clear();
        else {
          const poll = inbox.poll.get();
          status.info(refreshRefusal(poll.phase, poll.rateLimited, poll.error));
        }
      }}
      onNewAddress={p.newAddress}
      onSample={p.sendSample}
      onCopy={() => p.actions.copyText('address', session.email)}
      onSwitch={props.onSwitch}
      onForget={() => p.setQuestion({ kind: 'forget', provider: api.info.id })}
      onFilter={() => p.setFiltering(true)}
      onClearFilter={p.clearFilter}
      onHelp={() => p.setHelp(true)}
      onQuit={props.onQuit}
    />
  );
}

/** What the bottom line shows now. */
export interface BottomState {
  question: Question | null;
  filtering: boolean;
  filterText: string;
  typingSearch: boolean;
  shownStatus: StatusMessage | null;
}

/** Above the footer: a question, the filter or search input, or the status. */
export function sessionBottom(p: SessionParts, b: BottomState): React.ReactNode {
  const { columns, session } = p.props;
  const { reading } = p;
  if (b.question) return <QuestionLine question={b.question} email={session.email} columns={columns} />;
  if (b.filtering) {
    return (
      <FilterLine
        value={b.filterText}
        focus={p.screen === 'filter'}
        onChange={(clean) => {
          p.setFilterText(clean);
          p.inbox.dispatch({ type: 'filter', text: clean });
        }}
      />
    );
  }
  if (b.typingSearch && reading.search) {
    return (
      <SearchLine
        value={reading.search.pattern}
        focus={p.screen === 'search'}
        count={reading.searchCount}
        columns={columns}
        onChange={reading.typeSearch}
      />
    );
  }
  return <StatusLine status={b.shownStatus} columns={columns} />;
}

/** The header: the address, its expiry, the checks; `unread` counted while a message is open. */
export function sessionHeader(p: SessionParts, unread: number | undefined): React.ReactNode {
  const { props, inbox } = p;
  return (
    <LiveSessionHeader
      session={props.session}
      zoneErrorMs={inbox.zoneErrorMs}
      poll={inbox.poll}
      intervalMs={inbox.intervalMs}
      clock={props.clock}
      columns={props.columns}
      local={props.local}
      where={props.where}
      push={inbox.push}
      unread={unread}
    />
  );
}

/** The `?` help of the screen under it. */
export function sessionHelp(p: SessionParts, under: Screen): React.ReactNode {
  return (
    <HelpScreen
      screen={under}
      columns={p.props.columns}
      rows={p.height}
      onClose={() => p.setHelp(false)}
      isActive={p.screen === 'help'}
    />
  );
}
