/**
 * The message list: only the rows inside the scroll window are drawn (a slice of the visible list), so
 * a keypress costs the same with 10 messages or 10,000. Each row is cut to the width by columns, never
 * inside a wide character. Each row starts with its flags: `+` new or `N` unread (also bold where colour
 * is on; with NO_COLOR the letter says it alone), then `@` when the message has attachments.
 */
import { Box, Text } from 'ink';
import { memo } from 'react';
import { fitToWidth, textWidth } from '../../text/text-width';
import type { MessageId, MessageSummary } from '../../model/mail-types';
import { useTheme } from '../widgets/theme';
import { senderLabel, shortTime, subjectLabel } from '../wording/display-format';
import type { InboxState } from './inbox-state';
import { selectedIndex } from './inbox-state';

export interface InboxListProps {
  state: InboxState;
  columns: number;
  /** For "today" vs. older times. */
  now: number;
  /** The mark of a fetched message ("code 482913", "link"), '' when none or not fetched. */
  badge?: (m: MessageSummary) => string;
  /** Whether a message has attachments, as far as is known (the listing, or its fetched body). O(1). */
  attached?: (m: MessageSummary) => boolean;
}

const TIME_COLS = 6;

/**
 * The columns of one row: flags (see flagsOf), sender, subject, time. A badge (the detected code) ends
 * the subject column, so it stays visible however long the subject is.
 */
export function rowText(m: MessageSummary, flags: string, columns: number, now: number, badge = ''): string {
  const senderCols = Math.min(30, Math.max(10, Math.floor(columns * 0.28)));
  const subjectCols = Math.max(1, columns - textWidth(flags) - 1 - senderCols - 1 - 1 - TIME_COLS);
  const badgeCols = badge ? textWidth(badge) + 3 : 0;
  const subject =
    badge && badgeCols < subjectCols - 8
      ? `${fitToWidth(subjectLabel(m.subject), subjectCols - badgeCols)} [${badge}]`
      : fitToWidth(subjectLabel(m.subject), subjectCols);
  return `${flags} ${fitToWidth(senderLabel(m), senderCols)} ${subject} ${shortTime(m.receivedAt, now).padStart(TIME_COLS)}`;
}

/** `+` arrived while you watched, `N` not opened yet, blank when read. */
export function markerOf(state: InboxState, id: string): string {
  if (state.fresh.has(id)) return '+';
  return state.unread.has(id) ? 'N' : ' ';
}

/** The two flag columns of a row: markerOf, then `@` when the message has attachments. */
export function flagsOf(state: InboxState, id: MessageId, attached: boolean): string {
  return `${markerOf(state, id)}${attached ? '@' : ' '}`;
}

interface RowProps {
  message: MessageSummary;
  flags: string;
  columns: number;
  now: number;
  badge: string;
  selected: boolean;
  unread: boolean;
  fresh: boolean;
}

/**
 * One row, drawn again only when something it shows changed (its message, flags, badge, selection, the
 * width, the day): a key that moves the selection draws two rows.
 */
const Row = memo(function Row(props: RowProps) {
  const theme = useTheme();
  // Bold is emphasis colour terminals show well; under NO_COLOR the row's N (or +) says it plainly.
  return (
    <Text
      wrap="truncate"
      inverse={props.selected}
      bold={props.unread && !theme.noColor}
      color={props.fresh ? theme.color('fresh') : undefined}
    >
      {rowText(props.message, props.flags, props.columns, props.now, props.badge)}
    </Text>
  );
});

/** What the listing left out, in a few words for the summary line (the status line said it whole). */
function cutText({ cut }: Pick<InboxState, 'cut'>): string {
  if (!cut) return '';
  return (
    (cut.stoppedAt ? ' · more not listed' : '') + (cut.unreadable > 0 ? ` · ${cut.unreadable} unreadable left out` : '')
  );
}

/** How many of `ids` are in `set`: with a filter, the counts are of what matches (one pass, only then). */
function countIn(set: ReadonlySet<MessageId>, state: InboxState): number {
  if (!state.filter) return set.size;
  let n = 0;
  for (const m of state.visible) if (set.has(m.id)) n += 1;
  return n;
}

/** The visible window of the list, plus how much is above and below it. */
export function InboxList({ state, columns, now, badge, attached }: InboxListProps) {
  const theme = useTheme();
  const selected = selectedIndex(state);
  const rows = state.visible.slice(state.offset, state.offset + state.rows);
  const below = Math.max(0, state.visible.length - state.offset - rows.length);
  const unread = countIn(state.unread, state);
  const fresh = countIn(state.fresh, state);
  const summary =
    `${state.visible.length} message${state.visible.length === 1 ? '' : 's'}` +
    (state.filter ? ` matching "${state.filter}" (of ${state.all.length})` : '') +
    ` · ${unread} unread` +
    (fresh > 0 ? ` · ${fresh} new` : '') +
    (state.offset > 0 ? ` · ${state.offset} above` : '') +
    (below > 0 ? ` · ${below} below` : '') +
    cutText(state);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate" color={theme.color('muted')}>
        {fitToWidth(summary, columns)}
      </Text>
      {rows.map((m, i) => (
        <Row
          key={m.id}
          message={m}
          flags={flagsOf(state, m.id, attached?.(m) ?? false)}
          columns={columns}
          now={now}
          badge={badge?.(m) ?? ''}
          selected={state.offset + i === selected}
          unread={state.unread.has(m.id)}
          fresh={state.fresh.has(m.id)}
        />
      ))}
    </Box>
  );
}
