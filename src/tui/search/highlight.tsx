/**
 * A line of the viewer with its search matches marked. The marking is Ink's own styling of separate
 * <Text> pieces cut from the already terminal-safe line (find-matches.ts, lineSegments): no escape code
 * is ever put into a string, so a match inside hostile text cannot turn that text into terminal control.
 * The current match is inverse (like the selection everywhere); the others underlined, and yellow where
 * colour is on.
 */
import { Text } from 'ink';
import { memo } from 'react';
import { useTheme } from '../widgets/theme';
import type { Segment } from './find-matches';

/** One line, its pieces styled by whether they match. */
export const HighlightedLine = memo(function HighlightedLine({ segments }: { segments: readonly Segment[] }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate">
      {segments.map((s, i) =>
        s.hit === 'none' ? (
          s.text
        ) : (
          <Text
            // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one line, cut again as a whole when the line or the search changes; a piece is its place in the line
            key={i}
            inverse={s.hit === 'current'}
            bold={s.hit === 'current'}
            underline={s.hit === 'match'}
            color={s.hit === 'match' ? theme.color('warn') : undefined}
          >
            {s.text}
          </Text>
        ),
      )}
    </Text>
  );
});
