/**
 * The picker's list, drawn from its reducer (picker-state.ts) as the inbox draws its own: only the rows
 * in the window, the highlighted one marked, the first nine choices with the digit that picks them
 * (fixed to the choice, so scrolling never renumbers a line), and a line saying how many more there are
 * above and below when the list does not fit.
 */
import { Box, Text } from 'ink';
import { fitToWidth } from '../../text/text-width';
import { useTheme } from '../widgets/theme';
import type { PickerItem } from './picker-items';

/** How the list fills `rows` rows: the choices shown, and whether a "more" line takes the last row. */
export function listLayout(count: number, rows: number): { shown: number; more: boolean } {
  const room = Math.max(1, rows);
  if (count <= room) return { shown: count, more: false };
  return { shown: Math.max(1, room - 1), more: true };
}

/** "  ↑ 3 more above · ↓ 22 more below (g/G: first/last)": what the window leaves out. */
export function moreLine(top: number, shown: number, count: number): string {
  const below = Math.max(0, count - top - shown);
  const parts = [top > 0 ? `↑ ${top} more above` : '', below > 0 ? `↓ ${below} more below` : ''].filter(Boolean);
  return parts.length > 0 ? `  ${parts.join(' · ')} (g/G: first/last)` : '';
}

/** The key that picks choice `i` (0-based): its digit for the first nine, else blank of the same width. */
export function digitOf(i: number): string {
  return i < 9 ? `${i + 1} ` : '  ';
}

export interface PickerListProps {
  items: readonly PickerItem[];
  /** The highlighted choice and the first one shown (pickerWindow). */
  index: number;
  top: number;
  /** Rows the list may take, its "more" line included. */
  rows: number;
  columns: number;
}

/** The window of the list, plus how much is above and below it. */
export function PickerList({ items, index, top, rows, columns }: PickerListProps) {
  const theme = useTheme();
  const { shown, more } = listLayout(items.length, rows);
  return (
    <Box flexDirection="column">
      {items.slice(top, top + shown).map((item, i) => {
        const selected = top + i === index;
        return (
          <Text
            key={item.key}
            inverse={selected && theme.noColor}
            color={selected ? theme.color('accent') : undefined}
            wrap="truncate"
          >
            {fitToWidth(`${selected ? '> ' : '  '}${digitOf(top + i)}${item.label}`, columns)}
          </Text>
        );
      })}
      {more ? (
        <Text color={theme.color('muted')} wrap="truncate">
          {fitToWidth(moreLine(top, shown, items.length), columns)}
        </Text>
      ) : null}
    </Box>
  );
}
