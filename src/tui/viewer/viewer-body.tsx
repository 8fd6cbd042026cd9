/**
 * The lines of the viewer inside its window: only those shown are drawn. With a search set, each line
 * is drawn in pieces with its matches marked (search/highlight.tsx); the pieces are cut from the line,
 * which is terminal-safe already, so nothing in it can become terminal control.
 */
import { Text } from 'ink';
import { HighlightedLine } from '../search/highlight';
import { lineSegments, type Matches } from '../search/find-matches';

export interface ViewerBodyProps {
  lines: readonly string[];
  scroll: number;
  rows: number;
  /** The search's matches, or null without a search. */
  matches: Matches | null;
  /** Index of the current match in `matches.list`. */
  current: number;
}

/** The window of lines. */
export function ViewerBody({ lines, scroll, rows, matches, current }: ViewerBodyProps) {
  const shown = lines.slice(scroll, scroll + rows);
  return (
    <>
      {shown.map((line, i) =>
        matches && matches.list.length > 0 && line !== '' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: scroll + i is the line's number in the message, its identity: a scroll keeps the rows still shown
          <HighlightedLine key={scroll + i} segments={lineSegments(matches, lines, scroll + i, current)} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: scroll + i is the line's number in the message, its identity: a scroll keeps the rows still shown
          <Text key={scroll + i} wrap="truncate">
            {line === '' ? ' ' : line}
          </Text>
        ),
      )}
    </>
  );
}
