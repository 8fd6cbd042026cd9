/** The fixed lines around every screen: the status line and the footer of key hints (from the keymap). */
import { Text } from 'ink';
import React, { memo } from 'react';
import { fitToWidth, textWidth, truncateToWidth } from '../../text/text-width';
import { footerHints, type Command, type Screen } from '../keymap/keymap';
import type { StatusMessage } from '../wording/status-text';
import { useTheme } from './theme';

/** One line: the last message, red when it is an error. */
export const StatusLine = memo(function StatusLine({ status, columns }: { status: StatusMessage | null; columns: number }) {
  const theme = useTheme();
  const color = status?.kind === 'error' ? theme.color('error') : undefined;
  return (
    <Text wrap="truncate" color={color} bold={status?.kind === 'error'}>
      {fitToWidth(status?.text ?? '', columns)}
    </Text>
  );
});

/** One line of key hints for `screen`, generated from the keymap; `hide` leaves out keys that cannot act now. */
export const Footer = memo(function Footer({ screen, columns, hide }: { screen: Screen; columns: number; hide?: readonly Command[] }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate" color={theme.color('muted')} dimColor={theme.noColor}>
      {fitToWidth(footerHints(screen, columns, hide), columns)}
    </Text>
  );
});

/**
 * A question on the status line, answered by the `confirm` keys, or by those `answers` say (longest
 * wording first; see confirmText).
 */
export function ConfirmLine({ question, columns, answers }: { question: string; columns: number; answers?: readonly string[] }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate" bold color={theme.color('warn')}>
      {confirmText(question, columns, answers)}
    </Text>
  );
}

// The footer spells the answers out too, so a tight line says them briefly.
const YES_NO = [' y = yes, any other key = no', ' (y/n)'];

/**
 * The question and how to answer it: the first wording of `answers` that fits whole, else the last
 * (shortest) one after the question cut to fit. The question is cut, never the answer keys.
 */
export function confirmText(question: string, columns: number, answers: readonly string[] = YES_NO): string {
  for (const answer of answers.slice(0, -1)) {
    if (textWidth(question + answer) <= columns) return fitToWidth(question + answer, columns);
  }
  const last = answers.at(-1) ?? '';
  const room = Math.max(1, columns - textWidth(last));
  return fitToWidth(truncateToWidth(question, room) + last, columns);
}
