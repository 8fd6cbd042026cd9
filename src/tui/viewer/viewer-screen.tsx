/**
 * The message viewer: headers (toggled by `H`), the body wrapped to the width (HTML through
 * html-to-text with numbered links), scrolling by line and page, links picked by number. Only the
 * lines inside the window are drawn.
 */
import { Box, Text } from 'ink';
import React, { useEffect, useMemo, useReducer } from 'react';
import { fitToWidth } from '../../core/text-width';
import type { Message, MessageSummary } from '../../core/types';
import { useTheme } from '../common/theme';
import { useKeys } from '../common/use-keys';
import { byteSize, longTime, senderFull, subjectLabel } from '../format';
import type { BodyEntry } from './use-message-cache';
import { useRenderedBody } from './use-rendered-body';
import { initialViewerState, linkChoice, viewerReducer } from './viewer-state';

export interface ViewerScreenProps {
  /** The list entry: shown while the full message loads. */
  summary: MessageSummary;
  entry: BodyEntry | undefined;
  columns: number;
  /** Lines available for headers, rule and body. */
  rows: number;
  isActive: boolean;
  onBack: () => void;
  onDelete: () => void;
  onReload: () => void;
  onHelp: () => void;
  /** A link was picked by number: show it and copy it. */
  onLink: (n: number, url: string) => void;
  onStatus: (text: string) => void;
}

/** The header lines of a message: From, To, Cc, Subject, Date, attachments. */
export function headerLines(m: MessageSummary & Partial<Message>, full: boolean): [string, string][] {
  const lines: [string, string][] = [];
  if (full) lines.push(['From', senderFull(m)]);
  if (full && m.to?.length) lines.push(['To', m.to.join(', ')]);
  if (full && m.cc?.length) lines.push(['Cc', m.cc.join(', ')]);
  lines.push(['Subject', subjectLabel(m.subject)]);
  if (full) lines.push(['Date', longTime(m.receivedAt)]);
  if (full && m.attachments?.length) {
    lines.push(['Attached', m.attachments.map((a) => `${a.filename || 'unnamed'} (${byteSize(a.size)})`).join(', ')]);
  }
  return lines;
}

/** The viewer with its keys. */
export function ViewerScreen(props: ViewerScreenProps) {
  const { entry, columns, rows, isActive } = props;
  const theme = useTheme();
  const [state, dispatch] = useReducer(viewerReducer, initialViewerState);
  const message = entry?.status === 'ready' ? entry.message : undefined;
  const view = useRenderedBody(message, columns);
  const lines = useMemo(() => (view?.status === 'ready' ? view.body.text.split('\n') : []), [view]);
  const links = view?.status === 'ready' ? view.body.links : [];

  const headers = headerLines({ ...props.summary, ...message }, state.showHeaders);
  const bodyRows = Math.max(1, rows - headers.length - 1);
  const maxScroll = Math.max(0, lines.length - bodyRows);
  useEffect(() => dispatch({ type: 'clamp', max: maxScroll }), [maxScroll]);

  const pickDigit = (digit: string) => {
    if (links.length === 0) return props.onStatus('This message has no links.');
    const choice = linkChoice(state.linkDigits, digit, links.length);
    dispatch({ type: 'linkDigits', digits: choice.wait ?? '' });
    if (choice.wait) return props.onStatus(`Link ${choice.wait}… (another digit, or Enter)`);
    const link = choice.pick !== undefined ? links[choice.pick - 1] : undefined;
    if (link) props.onLink(link.n, link.url);
    else props.onStatus(`No link ${state.linkDigits}${digit}: this message has ${links.length}.`);
  };
  const page = Math.max(1, bodyRows - 1);
  useKeys(
    'viewer',
    {
      down: () => dispatch({ type: 'scroll', delta: 1, max: maxScroll }),
      up: () => dispatch({ type: 'scroll', delta: -1, max: maxScroll }),
      pageDown: () => dispatch({ type: 'scroll', delta: page, max: maxScroll }),
      pageUp: () => dispatch({ type: 'scroll', delta: -page, max: maxScroll }),
      first: () => dispatch({ type: 'top' }),
      last: () => dispatch({ type: 'bottom', max: maxScroll }),
      headers: () => dispatch({ type: 'toggleHeaders' }),
      link: pickDigit,
      submit: () => {
        const link = state.linkDigits ? links[Number(state.linkDigits) - 1] : undefined;
        dispatch({ type: 'linkDigits', digits: '' });
        if (link) props.onLink(link.n, link.url);
      },
      delete: props.onDelete,
      refresh: () => {
        if (entry?.status === 'error') props.onReload();
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
  } else if (entry.status === 'error') {
    body = (
      <Text wrap="truncate" color={theme.color('error')}>
        {fitToWidth(`Could not load this message: ${entry.error}. Press r to try again.`, columns)}
      </Text>
    );
  } else if (!view || view.status === 'rendering') {
    body = <Text color={theme.color('muted')}>Rendering the message…</Text>;
  } else {
    const shown = lines.slice(state.scroll, state.scroll + bodyRows);
    const last = Math.min(lines.length, state.scroll + bodyRows);
    position = ` lines ${state.scroll + 1}-${last} of ${lines.length}${links.length ? ` · ${links.length} links` : ''} `;
    body = shown.map((line, i) => (
      <Text key={state.scroll + i} wrap="truncate">
        {line === '' ? ' ' : line}
      </Text>
    ));
  }
  const labelCols = 10;
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      {headers.map(([label, value]) => (
        <Text key={label} wrap="truncate">
          <Text bold color={theme.color('accent')}>
            {fitToWidth(`${label}:`, labelCols)}
          </Text>
          {fitToWidth(value, Math.max(1, columns - labelCols))}
        </Text>
      ))}
      <Text wrap="truncate" color={theme.color('muted')}>
        {fitToWidth(`──${position}${'─'.repeat(columns)}`, columns, '')}
      </Text>
      {body}
    </Box>
  );
}
