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
import { partsOf, useViewerLines } from './use-viewer-lines';
import { ViewerBody } from './viewer-body';
import { extraLines, LABEL_COLS } from './viewer-extras';
import { initialViewerState, linkChoice, viewerReducer, type ViewerMode } from './viewer-state';

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
  // Re-wrapped for a new width: scroll to where the same text is, in this very render (no frame of the
  // old line number over new text). While a big body renders anew, the old lines and position wait.
  // Another kind of lines (source, the other part) starts at the top.
  const [wrapped, setWrapped] = useState<{ lines: readonly string[]; kind: string }>({ lines: [], kind: '' });
  const kind = `${mode.source}${label}`;
  if (lines && lines !== wrapped.lines && lines.length > 0) {
    setWrapped({ lines, kind });
    if (wrapped.kind !== kind) dispatch({ type: 'top' });
    else if (wrapped.lines.length > 0) dispatch({ type: 'rewrap', from: wrapped.lines, to: lines, max: maxScroll });
  }
  const hasLines = count > 0;
  useEffect(() => {
    if (hasLines) dispatch({ type: 'clamp', max: maxScroll });
  }, [maxScroll, hasLines]);

  const search = useSearch({
    search: props.search,
    lines,
    scroll: state.scroll,
    reveal: (line) => dispatch({ type: 'reveal', line, rows: bodyRows, max: maxScroll }),
    onCount: props.onSearchCount,
    // Kept even when it found nothing: Esc then clears it first, and only the next Esc leaves (issue 26).
    onKept: (text) => props.onStatus(text),
  });

  const pickDigit = (digit: string) => {
    if (links.length === 0) return props.onStatus('This message has no links.');
    const choice = linkChoice(state.linkDigits, digit, links.length);
    dispatch({ type: 'linkDigits', digits: choice.wait ?? '' });
    if (choice.wait) return props.onStatus(`Link ${choice.wait}… (another digit, or Enter)`, true);
    const link = choice.pick !== undefined ? links[choice.pick - 1] : undefined;
    if (link) pick(link.n);
    else props.onStatus(`No link ${state.linkDigits}${digit}: this message has ${links.length}.`);
  };
  const pick = (n: number) => {
    dispatch({ type: 'pick', n });
    props.onStatus(`Link ${n} picked: o opens it, y copies it.`);
  };
  // `y`: the picked link, else the code, else the detected link.
  const yank = () => {
    if (picked) return props.onCopy(`link ${picked.n}`, picked.url);
    if (mark?.code) return props.onCopy(`code ${mark.code}`, mark.code);
    if (mark?.link) return props.onCopy(`link ${mark.link.n}`, mark.link.url);
    if (!message) return props.onStatus('The message is not loaded yet.');
    props.onStatus(links.length ? 'No code found here: type a link number first, then y copies it.' : 'No code or link found in this message.');
  };
  // `c`: the code alone (as `c` copies in the inbox), or why there is none and what y would copy.
  const copyCode = () => {
    if (mark?.code) return props.onCopy(`code ${mark.code}`, mark.code);
    if (!message) return props.onStatus('The message is not loaded yet.');
    if (picked || mark?.link) return props.onStatus(`No code found in this message: y copies link ${(picked ?? mark?.link)?.n}.`);
    props.onStatus(links.length ? 'No code found in this message: type a link number, then y copies it.' : 'No code found in this message (and no link).');
  };
  // `o`: the picked link, else the detected one; picking it shows it whole at the top.
  const openLink = () => {
    const target = picked ?? (mark?.link ? links[mark.link.n - 1] : undefined);
    if (!target) {
      return props.onStatus(links.length ? `Which link? Type its number (1-${links.length}), then o.` : 'This message has no links.');
    }
    if (state.picked !== target.n) dispatch({ type: 'pick', n: target.n });
    props.onOpenLink(target.n, target.url);
  };
  const save = () => {
    if (!message) return props.onStatus('The message is not loaded yet.');
    if (message.attachments.length === 0) return props.onStatus('This message has no attachments.');
    props.onSave(message.attachments);
  };
  // `t`: the other part, when there is one; the choice stays for the following messages.
  const switchPart = () => {
    if (!message) return props.onStatus('The message is not loaded yet.');
    if (mode.source) return props.onStatus('The source is shown: R shows the message again, then t switches its part.');
    const parts = partsOf(message);
    if (!parts.html || !parts.text) return props.onStatus(`This message has only ${parts.html ? 'an HTML' : 'a text'} part.`);
    const part = label.startsWith('HTML') ? 'text' : 'html';
    props.onMode({ ...mode, part });
    props.onStatus(`Showing the ${part === 'html' ? 'HTML' : 'text'} part (t switches back; kept for the next messages)`);
  };
  const page = Math.max(1, bodyRows - 1);
  const found = props.search !== null && !props.search.typing;
  useKeys(
    found ? 'found' : 'viewer',
    {
      down: () => dispatch({ type: 'scroll', delta: 1, max: maxScroll }),
      up: () => dispatch({ type: 'scroll', delta: -1, max: maxScroll }),
      pageDown: () => dispatch({ type: 'scroll', delta: page, max: maxScroll }),
      pageUp: () => dispatch({ type: 'scroll', delta: -page, max: maxScroll }),
      first: () => dispatch({ type: 'top' }),
      last: () => dispatch({ type: 'bottom', max: maxScroll }),
      headers: () => props.onMode({ ...mode, headers: !mode.headers }),
      source: () => props.onMode({ ...mode, source: !mode.source }),
      part: switchPart,
      link: pickDigit,
      submit: () => {
        const link = state.linkDigits ? links[Number(state.linkDigits) - 1] : undefined;
        dispatch({ type: 'linkDigits', digits: '' });
        if (link) pick(link.n);
      },
      yank,
      copyCode,
      openLink,
      save,
      saveMessage: props.onSaveMessage,
      nextMessage: () => props.onStep(1),
      previousMessage: () => props.onStep(-1),
      search: props.onSearchStart,
      nextMatch: () => props.onStatus(search.step(1)),
      previousMatch: () => props.onStatus(search.step(-1)),
      clearSearch: props.onSearchClear,
      delete: props.onDelete,
      refresh: () => {
        if (entry?.status === 'error') props.onReload();
        else if (mode.source && props.source?.status === 'error') props.onReloadSource();
      },
      back: props.onBack,
      help: props.onHelp,
    },
    { isActive },
  );

  let body: React.ReactNode;
  let position = '';
  if (!entry || entry.status === 'loading') {
    body = <Text color={theme.color('muted')}>Loading the message…</Text>;
  } else if (entry.status === 'error' || view.status === 'error') {
    const what = entry.status === 'error' ? `this message: ${entry.error}` : `its source: ${view.status === 'error' ? view.error : ''}`;
    body = (
      <Text wrap="truncate" color={theme.color('error')}>
        {fitToWidth(`Could not load ${what}. Press r to try again.`, columns)}
      </Text>
    );
  } else if (view.status !== 'ready') {
    body = <Text color={theme.color('muted')}>{`${view.status === 'loading' ? 'Loading' : 'Rendering'} ${view.what}…`}</Text>;
  } else {
    const last = Math.min(count, state.scroll + bodyRows);
    const linkCount = !mode.source && links.length ? ` · ${links.length} link${links.length === 1 ? '' : 's'}` : '';
    position = ` ${label ? `${label} · ` : ''}lines ${state.scroll + 1}-${last} of ${count}${linkCount} `;
    body = <ViewerBody lines={view.lines} scroll={state.scroll} rows={bodyRows} matches={search.matches} current={search.current} />;
  }
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      {headers.map(([name, value, url], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the message's header rows, replaced as a whole (a long link's rows share the name ''); a row has no identity but its place
        <Text key={`${name}-${i}`} wrap="truncate">
          <Text bold color={theme.color('accent')}>
            {fitToWidth(name ? `${name}:` : '', LABEL_COLS)}
          </Text>
          {linked(fitToWidth(value, Math.max(1, columns - LABEL_COLS)), url)}
        </Text>
      ))}
      <Text wrap="truncate" color={theme.color('muted')}>
        {fitToWidth(`──${position}${'─'.repeat(columns)}`, columns, '')}
      </Text>
      {body}
    </Box>
  );
}
