/**
 * The inbox's rows are memoized (a key redraws the two rows whose selection changed), so each thing a row
 * shows must still reach it when it changes: the selection (inverse) moving with keys and across a
 * filter, unread (bold and N) going when a message is opened or the service says it was seen, a subject
 * the service changed for the same id, new mail on top (+), the filter's rows. Colour is forced on for
 * this file so the frames carry inverse and bold as a terminal gets them.
 */
import type React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import type { MessageSummary } from '../../../src/model/mail-types';
import type { InboxAction } from '../../../src/tui/inbox/inbox-state';

type Ui = typeof import('../ui');
let ui: Ui;
let BigInbox: typeof import('./big-inbox').BigInbox;
let manyMessages: typeof import('./big-inbox').manyMessages;
let createElement: typeof React.createElement;
const saved = process.env.FORCE_COLOR;

beforeAll(async () => {
  // chalk (under Ink) decides its colour level when loaded: force it before anything loads it.
  process.env.FORCE_COLOR = '1';
  ui = await import('../ui');
  ({ BigInbox, manyMessages } = await import('./big-inbox'));
  ({ createElement } = await import('react'));
});
afterAll(() => {
  if (saved === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved;
});

const INVERSE = '\x1b[7m';
const BOLD = '\x1b[1m';

/** The raw rows of the last frame that show a message ("Message number N"), by number. */
function rows(frame: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of frame.split('\n')) {
    const n = /Message number (\d+)|Renamed (\d+)|Fresh (\d+)/.exec(ui.plain(line));
    if (n) out.set(Number(n[1] ?? n[2] ?? n[3]), line);
  }
  return out;
}

/** Waits until the last frame, raw (with its styling), passes `test`. */
const waitForFrame = (screen: { frames: string[] }, test: (frame: string) => boolean) =>
  waitFor(() => test(screen.frames.at(-1) ?? ''), { message: 'a frame' });

const selectedRow = (frame: string) => [...rows(frame)].filter(([, line]) => line.includes(INVERSE)).map(([n]) => n);
const boldRows = (frame: string) =>
  [...rows(frame)]
    .filter(([, line]) => line.includes(BOLD))
    .map(([n]) => n)
    .sort((a, b) => a - b);
const marker = (frame: string, n: number) => ui.plain(rows(frame).get(n) ?? '').slice(0, 1);

describe('memoized inbox rows', () => {
  it('follow the selection, the read state, changed listings and the filter', async () => {
    const messages = manyMessages(30);
    let dispatch: (action: InboxAction) => void = () => undefined;
    const screen = ui.renderAt(
      createElement(BigInbox, { messages, noColor: false, onDispatch: (d) => (dispatch = d) }),
      80,
      24,
    );
    const last = () => screen.frames.at(-1) ?? '';
    try {
      await screen.waitFor('Message number 30');
      // Newest first; the newest selected; every row unread (bold, N).
      expect(selectedRow(last())).toEqual([30]);
      expect(boldRows(last())).toHaveLength(18);

      await screen.press('j', 'j');
      await waitForFrame(screen, (f) => selectedRow(f).join() === '28');
      await screen.press('k');
      await waitForFrame(screen, (f) => selectedRow(f).join() === '29');

      // Opened: no longer bold, no N; the others as they were.
      dispatch({ type: 'opened', id: '29' });
      await waitForFrame(screen, (f) => !boldRows(f).includes(29));
      expect(marker(last(), 29)).toBe(' ');
      expect(marker(last(), 28)).toBe('N');
      expect(selectedRow(last())).toEqual([29]);

      // The service says 27 was seen, renames 26 (same id), and new mail arrives on top.
      const renamed = messages.map((m) =>
        m.id === '27' ? { ...m, seen: true } : m.id === '26' ? { ...m, subject: 'Renamed 26' } : m,
      );
      const fresh: MessageSummary = {
        ...messages[29]!,
        id: '31',
        subject: 'Fresh 31',
        receivedAt: new Date(Date.UTC(2026, 10, 22)),
      };
      dispatch({ type: 'listed', messages: [...renamed, fresh] });
      await waitForFrame(screen, (f) => rows(f).has(31) && ui.plain(f).includes('Renamed 26'));
      expect(ui.plain(last())).not.toContain('Message number 26 ');
      expect(marker(last(), 31)).toBe('+');
      expect(boldRows(last())).not.toContain(27);
      // The selection stays on the message it was on.
      expect(selectedRow(last())).toEqual([29]);

      // A filter: only matching rows; the selection moves into them, and back when it is cleared.
      dispatch({ type: 'filter', text: 'number 1' });
      await waitForFrame(screen, (f) => !rows(f).has(29) && rows(f).has(19));
      expect([...rows(last()).keys()].every((n) => String(n).startsWith('1'))).toBe(true);
      expect(selectedRow(last())).toHaveLength(1);
      dispatch({ type: 'filter', text: '' });
      await waitForFrame(screen, (f) => rows(f).has(30) && rows(f).has(31));
      expect(selectedRow(last())).toHaveLength(1);
    } finally {
      screen.unmount();
    }
  });
});
