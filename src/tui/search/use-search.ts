/**
 * A search in the lines a viewer shows: the matches of the pattern (found again when it is typed further
 * or the lines are re-wrapped), the current match, and moving between matches with the window following.
 * A search starts where the reader is: the first match is the first one from the top line shown then,
 * as in less; n past the last match comes back to the first.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { findMatches, firstMatchFrom, lineOf, type Matches } from './find-matches';
import type { SearchCount } from './search-line';

/** The search of a viewer: the pattern, and whether it is still being typed. */
export interface SearchState {
  pattern: string;
  typing: boolean;
}

export interface SearchHandle {
  /** null without a search (or before the lines are there). */
  matches: Matches | null;
  /** Index of the current match. */
  current: number;
  /** Moves to the next (1) or previous (-1) match; returns the status line's words. */
  step(direction: 1 | -1): string;
}

export interface UseSearchInput {
  search: SearchState | null;
  /** The lines shown, or null while they are prepared. */
  lines: readonly string[] | null;
  /** The top line shown: where a new search starts from. */
  scroll: number;
  /** Scrolls so that this line is shown. */
  reveal: (line: number) => void;
  /** Told where the search is whenever that changes (null: no search). */
  onCount?: (count: SearchCount | null) => void;
  /** The search was kept (Enter): its words for the status line (where it is, or that nothing matched). */
  onKept?: (text: string) => void;
}

/** "“pattern” 3/7", with a note when the search came round. */
function position(pattern: string, matches: Matches, current: number, note = ''): string {
  return `"${pattern}" ${current + 1}/${matches.list.length}${matches.capped ? '+' : ''}${note}`;
}

/** The search over `lines`. */
export function useSearch({ search, lines, scroll, reveal, onCount, onKept }: UseSearchInput): SearchHandle {
  const pattern = search?.pattern ?? '';
  const matches = useMemo(() => (lines && pattern ? findMatches(lines, pattern) : null), [lines, pattern]);
  // Where the search started, and which pattern the current match was chosen for.
  const [origin, setOrigin] = useState<number | null>(null);
  const [chosen, setChosen] = useState<{ pattern: string; current: number }>({ pattern: '', current: 0 });
  if (!search && origin !== null) setOrigin(null);
  if (!search && chosen.pattern !== '') setChosen({ pattern: '', current: 0 });
  if (search && origin === null) setOrigin(scroll);
  // A new pattern (typed further): the first match from where the search started, shown.
  if (matches && chosen.pattern !== pattern) {
    const current = firstMatchFrom(matches, origin ?? scroll);
    setChosen({ pattern, current });
    if (matches.list.length > 0) reveal(lineOf(matches, matches.list[current]!.start));
  }
  const count = matches?.list.length ?? 0;
  const current = count > 0 ? Math.min(chosen.current, count - 1) : 0;

  const capped = matches?.capped ?? false;
  const active = search !== null;
  // Read through a ref: the count is reported when it changes, not when the parent passes a new function.
  const countRef = useRef(onCount);
  countRef.current = onCount;
  useEffect(() => {
    countRef.current?.(active && matches ? { pattern, current: count > 0 ? current + 1 : 0, count, capped } : null);
  }, [active, matches, current, count, capped, pattern]);

  // Enter: said from the matches of this very render, never from a count reported a key earlier.
  const typing = useRef(false);
  const kept = search !== null && !search.typing;
  // biome-ignore lint/correctness/useExhaustiveDependencies: an edge, not a state: it runs when typing starts or ends (typing.current holds the last), and Enter's words are this render's matches; onKept is a new function each render
  useEffect(() => {
    if (kept && typing.current)
      onKept?.(searchSetText(pattern, matches ? { pattern, current: current + 1, count, capped } : null));
    typing.current = search?.typing ?? false;
  }, [kept, search?.typing]);

  const step = (direction: 1 | -1): string => {
    if (!matches || count === 0) return pattern ? `No match for "${pattern}"` : 'No search: / searches in the message';
    const raw = current + direction;
    const next = (raw + count) % count;
    setChosen({ pattern, current: next });
    reveal(lineOf(matches, matches.list[next]!.start));
    const note = raw >= count ? ' (from the top again)' : raw < 0 ? ' (from the bottom again)' : '';
    return position(pattern, matches, next, note);
  };
  return { matches, current, step };
}

/** The status line's words for a search just set: where it is, or that nothing matched. */
export function searchSetText(pattern: string, count: SearchCount | null): string {
  if (!count || count.pattern !== pattern || count.count === 0) return `No match for "${pattern}" · Esc clears`;
  return `"${pattern}" ${count.current}/${count.count}${count.capped ? '+' : ''} · n next, N previous, Esc clears`;
}
