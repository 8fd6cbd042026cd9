/** The `?` screen: every key of the screen underneath, generated from the keymap table. */
import { Box, Text } from 'ink';
import React from 'react';
import { fitToWidth, textWidth } from '../../core/text-width';
import { helpRows, type Screen } from '../keymap';
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
  switch: 'Keys: saved addresses',
};

/** Lists the keys of `screen`; `?`, Esc or `q` closes it. */
export function HelpScreen({ screen, columns, rows, onClose, isActive }: HelpScreenProps) {
  const theme = useTheme();
  useKeys('help', { back: onClose, help: onClose }, { isActive });
  const entries = helpRows(screen);
  const keyCols = Math.min(24, Math.max(...entries.map((e) => textWidth(e.keys))) + 2);
  const shown = entries.slice(0, Math.max(1, rows - 2));
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold color={theme.color('accent')}>
        {fitToWidth(TITLES[screen] ?? 'Keys', columns)}
      </Text>
      <Text> </Text>
      {shown.map((e) => (
        <Text key={`${e.keys}-${e.description}`} wrap="truncate">
          <Text bold>{fitToWidth(e.keys, keyCols)}</Text>
          {fitToWidth(e.description, Math.max(1, columns - keyCols))}
        </Text>
      ))}
    </Box>
  );
}
