/**
 * The `?` screen: every key of the screen underneath, generated from the keymap table. Descriptions wrap
 * under their column; when the lines do not fit, the help scrolls (j/k, pages, g/G) and its last line
 * says how much is above and below.
 */
import { Box, Text } from 'ink';
import { useState } from 'react';
import { fitToWidth } from '../../text/text-width';
import type { Screen } from '../keymap/keymap';
import { helpLayout, helpMaxScroll, helpWindow } from './help-layout';
import { useRemote } from './remote';
import { useTheme } from './theme';
import { useKeys } from './use-keys';

export interface HelpScreenProps {
  /** The screen whose keys are shown. */
  screen: Screen;
  columns: number;
  /** Lines available. */
  rows: number;
  onClose: () => void;
  isActive: boolean;
}

const TITLES: Partial<Record<Screen, string>> = {
  picker: 'Keys: choosing an address',
  inbox: 'Keys: inbox',
  viewer: 'Keys: reading a message',
  found: 'Keys: reading a message, a search set',
  switch: 'Keys: saved addresses',
};

/** Lists the keys of `screen`, scrolling when they do not fit; `?`, Esc or `q` closes it. */
export function HelpScreen({ screen, columns, rows, onClose, isActive }: HelpScreenProps) {
  const theme = useTheme();
  const [scroll, setScroll] = useState(0);
  const { keyCols, lines } = helpLayout(screen, columns, useRemote());
  const max = helpMaxScroll(lines.length, rows);
  const win = helpWindow(lines.length, rows, scroll, columns);
  const page = Math.max(1, win.size - 1);
  // From the position shown (a resize may have clamped it), never past either end.
  const move = (to: (top: number) => number) => setScroll(Math.max(0, Math.min(max, to(win.top))));
  useKeys(
    'help',
    {
      back: onClose,
      help: onClose,
      down: () => move((t) => t + 1),
      up: () => move((t) => t - 1),
      pageDown: () => move((t) => t + page),
      pageUp: () => move((t) => t - page),
      first: () => move(() => 0),
      last: () => move(() => max),
    },
    { isActive },
  );
  const descCols = Math.max(1, columns - keyCols);
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      <Text bold color={theme.color('accent')}>
        {fitToWidth(TITLES[screen] ?? 'Keys', columns)}
      </Text>
      {win.spacer ? <Text> </Text> : null}
      {lines.slice(win.top, win.top + win.size).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: win.top + i is the line's number in the help, its identity: a scroll keeps the rows still shown
        <Text key={win.top + i} wrap="truncate">
          <Text bold>{fitToWidth(line.keys, keyCols)}</Text>
          {fitToWidth(line.description, descCols)}
        </Text>
      ))}
      {win.more !== null ? (
        <Text wrap="truncate" color={theme.color('muted')} dimColor={theme.noColor}>
          {fitToWidth(win.more, columns)}
        </Text>
      ) : null}
    </Box>
  );
}
