/**
 * The message viewer: headers (toggled by `H`; long ones wrapped over a few lines by header-rows.ts), the
 * detected code and link, the attachments, the body wrapped to the width (HTML through html-to-text with
 * numbered links), scrolling by line and page, links picked by number, and the keys that act on them: `y`
 * copies the code (or the picked or detected link), `o` opens a link, `a` saves an attachment (the
 * session does the I/O). Only the lines inside the window are drawn.
 */
import { Box, Text } from 'ink';
import React, { useEffect, useMemo, useReducer, useState } from 'react';
import { fitToWidth } from '../../text/text-width';
import type { AttachmentInfo, MessageSummary } from '../../model/mail-types';
import { useTheme } from '../widgets/theme';
import { useKeys } from '../widgets/use-keys';
import { headerLines, wrappedHeaders } from './header-rows';
import type { BodyEntry } from './use-message-cache';
import { useRenderedBody } from './use-rendered-body';
import { extraLines, LABEL_COLS } from './viewer-extras';
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
  /** Copy `text`; `what` names it for the status line ("code 482913", "link 2"). */
  onCopy: (what: string, text: string) => void;
  /** Open link `n` in a browser (or show and copy it where there is none). */
  onOpenLink: (n: number, url: string) => void;
  /** Save one of these attachments (asks which when there are several). */
  onSave: (attachments: readonly AttachmentInfo[]) => void;
  onStatus: (text: string) => void;
}

/** The viewer with its keys. */
export function ViewerScreen(props: ViewerScreenProps) {
  const { entry, columns, rows, isActive } = props;
  const theme = useTheme();
  const [state, dispatch] = useReducer(viewerReducer, initialViewerState);
  const message = entry?.status === 'ready' ? entry.message : undefined;
  const view = useRenderedBody(message, columns);
  const rendered = view?.status === 'ready' ? view.body : undefined;
  const lines = useMemo(() => (rendered ? rendered.text.split('\n') : []), [rendered]);
  const links = rendered?.links ?? [];
  const mark = entry?.status === 'ready' ? entry.mark : undefined;
  const picked = state.picked !== null ? (links[state.picked - 1] ?? null) : null;

  // Every row above the rule counts, wrapped header lines included: the body gets the rest, so the
  // footer stays at the bottom and nothing pushes the session header off the top.
  const extras = extraLines({ mark, picked, attachments: message?.attachments ?? [], columns });
  // The listed receive time wins over the fetched one: use-inbox corrects it when the zone was misread.
  const shown = { ...props.summary, ...message, receivedAt: props.summary.receivedAt };
  const headers = [...wrappedHeaders(headerLines(shown, state.showHeaders), columns, rows, extras.length), ...extras];
  const bodyRows = Math.max(1, rows - headers.length - 1);
  const maxScroll = Math.max(0, lines.length - bodyRows);
  // Re-wrapped for a new width: scroll to where the same text is, in this very render (no frame of the
  // old line number over new text). While a big body renders anew, the old lines and position wait.
  const [wrapped, setWrapped] = useState(lines);
  if (lines !== wrapped && lines.length > 0) {
    setWrapped(lines);
    if (wrapped.length > 0) dispatch({ type: 'rewrap', from: wrapped, to: lines, max: maxScroll });
  }
  const hasLines = lines.length > 0;
  useEffect(() => {
    if (hasLines) dispatch({ type: 'clamp', max: maxScroll });
  }, [maxScroll, hasLines]);

  const pickDigit = (digit: string) => {
    if (links.length === 0) return props.onStatus('This message has no links.');
    const choice = linkChoice(state.linkDigits, digit, links.length);
    dispatch({ type: 'linkDigits', digits: choice.wait ?? '' });
    if (choice.wait) return props.onStatus(`Link ${choice.wait}… (another digit, or Enter)`);
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
        if (link) pick(link.n);
      },
      yank,
      openLink,
      save,
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
    position = ` lines ${state.scroll + 1}-${last} of ${lines.length}${links.length ? ` · ${links.length} link${links.length === 1 ? '' : 's'}` : ''} `;
    body = shown.map((line, i) => (
      <Text key={state.scroll + i} wrap="truncate">
        {line === '' ? ' ' : line}
      </Text>
    ));
  }
  const labelCols = LABEL_COLS;
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      {headers.map(([label, value], i) => (
        <Text key={`${label}-${i}`} wrap="truncate">
          <Text bold color={theme.color('accent')}>
            {fitToWidth(label ? `${label}:` : '', labelCols)}
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
