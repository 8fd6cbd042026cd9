/**
 * The fixed lines around every screen: the status line (or a question) and the footer of key hints
 * (from the keymap). A status or a question longer than the width wraps, over at most
 * MAX_STATUS_LINES lines; screens size their body with the same functions (statusLines, confirmLines).
 */
import { Box, Text } from 'ink';
import { memo } from 'react';
import { fitToWidth, textWidth, truncateToWidth } from '../../text/text-width';
import { wrapText } from '../../text/text-wrap';
import { footerHints, type Command, type Screen } from '../keymap/keymap';
import type { StatusMessage } from '../wording/status-text';
import { useTheme } from './theme';

/** Most lines a status or a question takes; past them the words are cut with "…", never the answer keys. */
export const MAX_STATUS_LINES = 4;

// The last of `lines` that are kept, with what follows it cut off by an ellipsis.
function cutAfter(lines: string[], columns: number): string[] {
  if (lines.length <= MAX_STATUS_LINES) return lines;
  const kept = lines.slice(0, MAX_STATUS_LINES);
  kept[MAX_STATUS_LINES - 1] = truncateToWidth(`${kept[MAX_STATUS_LINES - 1]} ${lines[MAX_STATUS_LINES]}`, columns);
  return kept;
}

/** The lines `text` takes on the status line at `columns`: wrapped, at most MAX_STATUS_LINES. */
export function statusLines(text: string, columns: number): string[] {
  return cutAfter(wrapText(text, Math.max(1, columns)).split('\n'), columns);
}

/** One or more lines: the last message, red when it is an error. */
export const StatusLine = memo(function StatusLine({
  status,
  columns,
}: {
  status: StatusMessage | null;
  columns: number;
}) {
  const theme = useTheme();
  const color = status?.kind === 'error' ? theme.color('error') : undefined;
  return (
    <Box flexDirection="column">
      {statusLines(status?.text ?? '', columns).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the status wrapped to the width, replaced as a whole; a line has no identity but its row
        <Text key={i} wrap="truncate" color={color} bold={status?.kind === 'error'}>
          {fitToWidth(line, columns)}
        </Text>
      ))}
    </Box>
  );
});

/** One line of key hints for `screen`, generated from the keymap; `hide` leaves out keys that cannot act now. */
export const Footer = memo(function Footer({
  screen,
  columns,
  hide,
}: {
  screen: Screen;
  columns: number;
  hide?: readonly Command[];
}) {
  const theme = useTheme();
  return (
    <Text wrap="truncate" color={theme.color('muted')} dimColor={theme.noColor}>
      {fitToWidth(footerHints(screen, columns, hide), columns)}
    </Text>
  );
});

/** Lines of a question or a prompt, bold in the warning colour. */
export function AskLines({ lines, columns }: { lines: readonly string[]; columns: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a question's lines, replaced as a whole; a line has no identity but its row
        <Text key={i} wrap="truncate" bold color={theme.color('warn')}>
          {fitToWidth(line, columns)}
        </Text>
      ))}
    </Box>
  );
}

// The footer spells the answers out too, so a tight line says them briefly.
const YES_NO = [' y = yes, any other key = no', ' (y/n)'];

/**
 * The question wrapped, then the answer whole: after its last line where it fits there, else on a line of
 * its own (a colon or question mark that leads it stays with the question). The answer is never split: "any other / key".
 */
function withAnswer(question: string, answer: string, cols: number): string[] {
  // What the answer starts with before its first space (":", "?") ends the question's own line.
  const lead = /^\S*/.exec(answer)?.[0] ?? '';
  const rest = answer.slice(lead.length);
  const lines = wrapText(question + lead, cols).split('\n');
  const end = lines.length - 1;
  if (textWidth(lines[end] + rest) <= cols) lines[end] += rest;
  else lines.push(rest.trim());
  return lines;
}

/**
 * The question and how to answer it, wrapped at `columns`: with the first wording of `answers` that
 * fits within MAX_STATUS_LINES, else the last (shortest) one after the question cut to fit. The
 * question is cut, never the answer keys.
 */
export function confirmLines(question: string, columns: number, answers: readonly string[] = YES_NO): string[] {
  const cols = Math.max(1, columns);
  for (const answer of answers) {
    const lines = withAnswer(question, answer, cols);
    if (lines.length <= MAX_STATUS_LINES) return lines;
  }
  const last = answers.at(-1) ?? '';
  // The question over the lines there are, its last line cut to leave room for the answer keys.
  const lines = wrapText(question, cols)
    .split('\n')
    .slice(0, MAX_STATUS_LINES + 1);
  const kept = lines.slice(0, MAX_STATUS_LINES);
  const room = Math.max(1, cols - textWidth(last));
  const next = lines[MAX_STATUS_LINES];
  const tail = next === undefined ? (kept[MAX_STATUS_LINES - 1] ?? '') : `${kept[MAX_STATUS_LINES - 1]} ${next}`;
  kept[MAX_STATUS_LINES - 1] = truncateToWidth(tail, room) + last;
  return kept;
}
