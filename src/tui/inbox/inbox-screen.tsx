/**
 * The inbox screen: the list, or an empty state that says what to do (empty-lines.ts: in local mode, T
 * and the exact SMTP target), and the inbox keys. Commands that leave the screen or talk to the service are the session's
 * (passed in); list movement is the reducer's.
 */
import { Box, Text } from 'ink';
import type React from 'react';
import { fitToWidth } from '../../text/text-width';
import type { MessageSummary } from '../../model/mail-types';
import { useTheme } from '../widgets/theme';
import { useKeys } from '../widgets/use-keys';
import { useNow } from '../widgets/use-now';
import type { LocalServiceInfo } from '../shell/shell-types';
import { emptyLines } from './empty-lines';
import { InboxList } from './inbox-list';
import { selectedMessage, type InboxAction, type InboxState } from './inbox-state';

export interface InboxScreenProps {
  state: InboxState;
  dispatch: (action: InboxAction) => void;
  address: string;
  columns: number;
  /** Lines available for the list and its summary. */
  rows: number;
  /** The check interval, or null once polling has stopped for good. */
  intervalMs: number | null;
  clock: () => number;
  local?: LocalServiceInfo;
  /** The host of a tempmail service on this machine, outside local mode (the empty inbox says how to send to it). */
  nearHost?: string;
  isActive: boolean;
  onOpen: (m: MessageSummary) => void;
  onDelete: (m: MessageSummary) => void;
  onRefresh: () => void;
  onNewAddress: () => void;
  /** `T`: sends this address a sample message (local mode), or says why not. */
  onSample?: () => void;
  onCopy: () => void;
  onFilter: () => void;
  /** Set while a filter is set: Esc clears it. */
  onClearFilter?: () => void;
  onHelp: () => void;
  onQuit: () => void;
  /** Switches to another saved address (`s`). */
  onSwitch?: () => void;
  /** Forgets this address (`x`, asks first). */
  onForget?: () => void;
  /** The mark of a fetched message, for its row. */
  badge?: (m: MessageSummary) => string;
  /** Whether a message has attachments, for its row's `@`. */
  attached?: (m: MessageSummary) => boolean;
}

/** The inbox list with its keys. */
export function InboxScreen(props: InboxScreenProps) {
  const { state, dispatch, columns, rows, isActive } = props;
  const theme = useTheme();
  // Times in the list change from "14:03" to "Nov 21" at midnight: a slow tick is plenty.
  const now = useNow(props.clock, 60_000);
  const withSelected = (f: (m: MessageSummary) => void) => () => {
    const m = selectedMessage(state);
    if (m) f(m);
  };
  useKeys(
    'inbox',
    {
      down: () => dispatch({ type: 'move', delta: 1 }),
      up: () => dispatch({ type: 'move', delta: -1 }),
      pageDown: () => dispatch({ type: 'page', direction: 1 }),
      pageUp: () => dispatch({ type: 'page', direction: -1 }),
      first: () => dispatch({ type: 'first' }),
      last: () => dispatch({ type: 'last' }),
      open: withSelected(props.onOpen),
      delete: withSelected(props.onDelete),
      refresh: props.onRefresh,
      newAddress: props.onNewAddress,
      sample: props.onSample,
      copy: props.onCopy,
      switch: props.onSwitch,
      forget: props.onForget,
      filter: props.onFilter,
      back: props.onClearFilter,
      help: props.onHelp,
      quit: props.onQuit,
    },
    { isActive },
  );

  let body: React.ReactNode;
  if (!state.loaded) {
    body = <Text color={theme.color('muted')}>Loading the inbox…</Text>;
  } else if (state.all.length === 0) {
    body = emptyLines(props.address, props.intervalMs, props.local, state.cut, props.nearHost).map((line, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: the empty inbox's lines, replaced as a whole; a line has no identity but its row
      <Text key={i} wrap="truncate">
        {fitToWidth(line, columns)}
      </Text>
    ));
  } else if (state.visible.length === 0) {
    body = (
      <Text wrap="truncate">
        {fitToWidth(`Nothing matches "${state.filter}". Press / and Esc to clear the filter.`, columns)}
      </Text>
    );
  } else {
    body = <InboxList state={state} columns={columns} now={now} badge={props.badge} attached={props.attached} />;
  }
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden">
      {body}
    </Box>
  );
}
