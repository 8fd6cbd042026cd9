/**
 * The message viewer: headers (toggled by `H`; long ones wrapped over a few lines by header-rows.ts), the
 * detected code and link, the attachments, and the body wrapped to the width (HTML through html-to-text
 * with numbered links, or the text part: `t`), or the message's source (`R`). Scrolling by line and page,
 * links picked by number, a search with its matches marked (`/`, then n/N), and the keys that act on the
 * message: `y` copies, `o` opens a link, `a` saves an attachment, `S` the message, J/K go to the next or
 * previous one (the session does the I/O and keeps the mode). Only the lines inside the window are drawn.
 */
import { Box, Text } from 'ink';
import type React from 'react';
import { useEffect, useReducer, useState } from 'react';
import { fitToWidth } from '../../text/text-width';
import { hyperlink } from '../../text/hyperlink';
import type { AttachmentInfo, MessageSummary } from '../../model/mail-types';
import { useRemote } from '../widgets/remote';
import { useTheme } from '../widgets/theme';
import { useKeys } from '../widgets/use-keys';
import type { SearchCount } from '../search/search-line';
import { useSearch, type SearchState } from '../search/use-search';
import { headerLines, wrappedHeaders } from './header-rows';
import type { BodyEntry } from './use-message-cache';
import type { SourceEntry } from '../source/use-message-source';
import { useViewerLines, type ViewerLines } from './use-viewer-lines';
import { ViewerBody } from './viewer-body';
import * as command from './viewer-commands';
import { extraLines, LABEL_COLS } from './viewer-extras';
import { initialViewerState, type ViewerAction, viewerReducer, type ViewerMode } from './viewer-state';
import { couldNotLoad, LOADING_MESSAGE, positionLine, preparing } from '../wording/viewer-words';
import type { Theme } from '../widgets/theme';
import type { CommandHandlers } from '../widgets/use-keys';

export interface ViewerScreenProps {
  /** The list entry: shown while the full message loads. */
  summary: MessageSummary;
  entry: BodyEntry | undefined;
  /** The message's source, when asked for (`R`); undefined before. */
  source: SourceEntry | undefined;
  /** False when the service cannot give sources: `R` shows the parsed message's fields. */
  sourcesAvailable: boolean;
  /** Headers shown, source or message, text or HTML part: the session's, kept across messages. */
  mode: ViewerMode;
  onMode: (mode: ViewerMode) => void;
  /** The search in this message, or null. */
  search: SearchState | null;
  columns: number;
  /** Lines available for headers, rule and body. */
  rows: number;
  isActive: boolean;
  onBack: () => void;
  onDelete: () => void;
  onReload: () => void;
  /** Asks again for a source that failed to load. */
  onReloadSource: () => void;
  onHelp: () => void;
  /** Copy `text`; `what` names it for the status line ("code 482913", "link 2"). */
  onCopy: (what: string, text: string) => void;
  /** Open link `n` in a browser (or show and copy it where there is none). */
  onOpenLink: (n: number, url: string) => void;
  /** Save one of these attachments (asks which when there are several). */
  onSave: (attachments: readonly AttachmentInfo[]) => void;
  /** `S`: save the message as .eml. */
  onSaveMessage: () => void;
  /** J and K: the next or previous message of the list. */
  onStep: (direction: 1 | -1) => void;
  /** `/`: start a search. */
  onSearchStart: () => void;
  /** Esc with a search set. */
  onSearchClear: () => void;
  /** Where the search is (for the search input's count). */
  onSearchCount: (count: SearchCount | null) => void;
  /** A line for the status bar; `sticky` ones stay until replaced (a question waiting for its answer). */
  onStatus: (text: string, sticky?: boolean) => void;
}

/** The viewer with its keys. */
export function ViewerScreen(props: ViewerScreenProps) {
  const { entry, columns, rows, isActive, mode } = props;
  const theme = useTheme();
  // Over SSH a link is a hyperlink the client's terminal opens (OSC 8): the service has no browser.
  const remote = useRemote();
  const linked = (text: string, url: string | undefined) => (remote && url ? hyperlink(url, text) : text);
  const [state, dispatch] = useReducer(viewerReducer, initialViewerState);
  const message = entry?.status === 'ready' ? entry.message : undefined;
  const { view, links, label } = useViewerLines(message, mode, props.source, props.sourcesAvailable, columns);
  const lines = view.status === 'ready' ? view.lines : null;
  const mark = entry?.status === 'ready' ? entry.mark : undefined;
  const picked = state.picked !== null ? (links[state.picked - 1] ?? null) : null;

  // Every row above the rule counts, wrapped header lines included: the body gets the rest, so the
  // footer stays at the bottom and nothing pushes the session header off the top.
  const extras = extraLines({ mark, picked, attachments: message?.attachments ?? [], columns });
  // The listed receive time wins over the fetched one: use-inbox corrects it when the zone was misread.
  const shown = { ...props.summary, ...message, receivedAt: props.summary.receivedAt };
  const headers = [...wrappedHeaders(headerLines(shown, mode.headers), columns, rows, extras.length), ...extras];
  const bodyRows = Math.max(1, rows - headers.length - 1);
  const count = lines?.length ?? 0;
  const maxScroll = Math.max(0, count - bodyRows);
  useRewrapScroll(lines, `${mode.source}${label}`, maxScroll, dispatch);

  const search = useSearch({
    search: props.search,
    lines,
    scroll: state.scroll,
    reveal: (line) => dispatch({ type: 'reveal', line, rows: bodyRows, max: maxScroll }),
    onCount: props.onSearchCount,
    // Kept even when it found nothing: Esc then clears it first, and only the next Esc leaves (issue 26).
    onKept: (text) => props.onStatus(text),
  });
  const ctx: command.ViewerCommandContext = { message, mark, links, picked, state, mode, label, dispatch, act: props };
  const scroll = { page: Math.max(1, bodyRows - 1), max: maxScroll };
  const handlers = viewerKeys(ctx, props, scroll, (direction) => props.onStatus(search.step(direction)));
  useKeys(props.search !== null && !props.search.typing ? 'found' : 'viewer', handlers, { isActive });

  let body: React.ReactNode;
  let position = '';
  if (!entry || entry.status === 'loading' || entry.status === 'error' || view.status !== 'ready') {
    body = <ViewerWait entry={entry} view={view} columns={columns} theme={theme} />;
  } else {
    const last = Math.min(count, state.scroll + bodyRows);
    position = positionLine(label, state.scroll + 1, last, count, mode.source ? 0 : links.length);
    body = (
      <ViewerBody
        lines={view.lines}
        scroll={state.scroll}
        rows={bodyRows}
        matches={search.matches}
        current={search.current}
      />
    );
  }
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      <ViewerHeaders headers={headers} columns={columns} theme={theme} linked={linked} />
      <Text wrap="truncate" color={theme.color('muted')}>
        {fitToWidth(`──${position}${'─'.repeat(columns)}`, columns, '')}
      </Text>
      {body}
    </Box>
  );
}

/**
 * Re-wrapped for a new width: scroll to where the same text is, in this very render (no frame of the
 * old line number over new text). While a big body renders anew, the old lines and position wait.
 * Another kind of lines (`kind`: source, the other part) starts at the top.
 */
function useRewrapScroll(
  lines: readonly string[] | null,
  kind: string,
  maxScroll: number,
  dispatch: (action: ViewerAction) => void,
): void {
  const [wrapped, setWrapped] = useState<{ lines: readonly string[]; kind: string }>({ lines: [], kind: '' });
  if (lines && lines !== wrapped.lines && lines.length > 0) {
    setWrapped({ lines, kind });
    if (wrapped.kind !== kind) dispatch({ type: 'top' });
    else if (wrapped.lines.length > 0) dispatch({ type: 'rewrap', from: wrapped.lines, to: lines, max: maxScroll });
  }
  const hasLines = (lines?.length ?? 0) > 0;
  useEffect(() => {
    if (hasLines) dispatch({ type: 'clamp', max: maxScroll });
  }, [maxScroll, hasLines, dispatch]);
}

/** The viewer's keys mapped to its commands: scrolling by `scroll.page`, the rest in viewer-commands.ts. */
export function viewerKeys(
  ctx: command.ViewerCommandContext,
  props: ViewerScreenProps,
  scroll: { page: number; max: number },
  stepMatch: (direction: 1 | -1) => void,
): CommandHandlers {
  const { dispatch } = ctx;
  const { page, max } = scroll;
  return {
    down: () => dispatch({ type: 'scroll', delta: 1, max }),
    up: () => dispatch({ type: 'scroll', delta: -1, max }),
    pageDown: () => dispatch({ type: 'scroll', delta: page, max }),
    pageUp: () => dispatch({ type: 'scroll', delta: -page, max }),
    first: () => dispatch({ type: 'top' }),
    last: () => dispatch({ type: 'bottom', max }),
    headers: () => props.onMode({ ...ctx.mode, headers: !ctx.mode.headers }),
    source: () => props.onMode({ ...ctx.mode, source: !ctx.mode.source }),
    part: () => command.switchPart(ctx),
    link: (digit) => command.pickDigit(ctx, digit),
    submit: () => command.submitLinkDigits(ctx),
    yank: () => command.yank(ctx),
    copyCode: () => command.copyCode(ctx),
    openLink: () => command.openLink(ctx),
    save: () => command.saveAttachment(ctx),
    saveMessage: props.onSaveMessage,
    nextMessage: () => props.onStep(1),
    previousMessage: () => props.onStep(-1),
    search: props.onSearchStart,
    nextMatch: () => stepMatch(1),
    previousMatch: () => stepMatch(-1),
    clearSearch: props.onSearchClear,
    delete: props.onDelete,
    refresh: () => {
      if (props.entry?.status === 'error') props.onReload();
      else if (ctx.mode.source && props.source?.status === 'error') props.onReloadSource();
    },
    back: props.onBack,
    help: props.onHelp,
  };
}

/** What stands in for the body while the message or its lines are on their way, or failed. */
function ViewerWait(props: { entry: BodyEntry | undefined; view: ViewerLines; columns: number; theme: Theme }) {
  const { entry, view, theme } = props;
  if (!entry || entry.status === 'loading') return <Text color={theme.color('muted')}>{LOADING_MESSAGE}</Text>;
  if (entry.status === 'error' || view.status === 'error') {
    const what =
      entry.status === 'error'
        ? `this message: ${entry.error}`
        : `its source: ${view.status === 'error' ? view.error : ''}`;
    return (
      <Text wrap="truncate" color={theme.color('error')}>
        {fitToWidth(couldNotLoad(what), props.columns)}
      </Text>
    );
  }
  return (
    <Text color={theme.color('muted')}>
      {preparing(view.status === 'loading', view.status === 'ready' ? '' : view.what)}
    </Text>
  );
}

/** The header rows above the rule: a name column, then the value cut to the width. */
function ViewerHeaders(props: {
  headers: readonly (readonly [string, string, string?])[];
  columns: number;
  theme: Theme;
  /** The value as shown, a hyperlink to `url` where the terminal opens them (over SSH). */
  linked: (text: string, url: string | undefined) => string;
}) {
  const { columns, theme, linked } = props;
  return props.headers.map(([name, value, url], i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the message's header rows, replaced as a whole (a long link's rows share the name ''); a row has no identity but its place
    <Text key={`${name}-${i}`} wrap="truncate">
      <Text bold color={theme.color('accent')}>
        {fitToWidth(name ? `${name}:` : '', LABEL_COLS)}
      </Text>
      {linked(fitToWidth(value, Math.max(1, columns - LABEL_COLS)), url)}
    </Text>
  ));
}
