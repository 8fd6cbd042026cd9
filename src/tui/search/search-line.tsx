/**
 * The viewer's search input on the status line: "/" then the pattern as typed (made terminal-safe), and
 * at the right how many matches it has so far ("3/7", "no match"), searched as it is typed.
 */
import { Box, Text } from 'ink';
import { safeLine } from '../../text/safe-text';
import { textWidth } from '../../text/text-width';
import { TextInput } from '../widgets/text-input';
import { useTheme } from '../widgets/theme';

/** Where the search is: the current match (1-based) of how many; `capped` when there are more. */
export interface SearchCount {
  /** The pattern these figures are for (the input may be a key ahead of them). */
  pattern: string;
  current: number;
  count: number;
  capped: boolean;
}

/** "3/7", "3/10000+", or "no match". */
export function countText(c: SearchCount | null): string {
  if (!c || c.count === 0) return 'no match';
  return `${c.current}/${c.count}${c.capped ? '+' : ''}`;
}

/** The search input with its count. */
export function SearchLine(props: {
  value: string;
  focus: boolean;
  count: SearchCount | null;
  columns: number;
  onChange: (clean: string) => void;
}) {
  const theme = useTheme();
  // Figures of the pattern as typed only: a key ahead of them shows none rather than the last one's.
  const current = props.count?.pattern === props.value ? props.count : undefined;
  const count = props.value && current ? ` ${countText(current)}` : '';
  return (
    <Box width={props.columns}>
      <Text>/</Text>
      <Box flexGrow={1}>
        <TextInput
          value={props.value}
          focus={props.focus}
          placeholder="search in the message (a capital makes case matter)"
          onChange={(text) => props.onChange(safeLine(text, 200))}
        />
      </Box>
      <Box width={textWidth(count)} flexShrink={0}>
        <Text color={current?.count ? undefined : theme.color('warn')}>{count}</Text>
      </Box>
    </Box>
  );
}
