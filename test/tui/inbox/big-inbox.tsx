/** An inbox screen holding `n` messages, with no service: shared by the long-list tests. */
import { useReducer } from 'react';
import type { MessageSummary } from '../../../src/model/mail-types';
import { ThemeProvider } from '../../../src/tui/widgets/theme';
import { InboxScreen } from '../../../src/tui/inbox/inbox-screen';
import { inboxReducer, initialInboxState, type InboxAction } from '../../../src/tui/inbox/inbox-state';

/** `n` summaries, newest last, with subjects long enough to be cut at 80 columns. */
export function manyMessages(n: number): MessageSummary[] {
  const base = Date.UTC(2026, 10, 21);
  return Array.from({ length: n }, (_, i) => ({
    id: String(i + 1),
    senderName: `Sender ${i + 1}`,
    senderEmail: `s${i + 1}@example.org`,
    subject: `Message number ${i + 1} with a subject long enough to be cut at eighty columns wide`,
    receivedAt: new Date(base + i * 1000),
  }));
}

/**
 * The inbox at 80x19 with every action a no-op; `onDispatch` hands the test the reducer's dispatch (to
 * list, open or filter as the session would), `noColor: false` draws the colours and emphasis.
 */
export function BigInbox({
  messages,
  noColor = true,
  onDispatch,
}: {
  messages: MessageSummary[];
  noColor?: boolean;
  onDispatch?: (dispatch: (action: InboxAction) => void) => void;
}) {
  const [state, dispatch] = useReducer(inboxReducer, undefined, () =>
    inboxReducer(initialInboxState(18), { type: 'listed', messages }),
  );
  onDispatch?.(dispatch);
  const noop = () => undefined;
  return (
    <ThemeProvider noColor={noColor}>
      <InboxScreen
        state={state}
        dispatch={dispatch}
        address="a@b.test"
        columns={80}
        rows={19}
        intervalMs={5000}
        clock={Date.now}
        isActive
        onOpen={noop}
        onDelete={noop}
        onRefresh={noop}
        onNewAddress={noop}
        onCopy={noop}
        onFilter={noop}
        onHelp={noop}
        onQuit={noop}
      />
    </ThemeProvider>
  );
}
