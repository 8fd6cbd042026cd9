import { describe, expect, it } from 'vitest';
import type { MessageSummary } from '../../src/model/mail-types';
import {
  inboxReducer,
  initialInboxState,
  selectedMessage,
  type InboxAction,
  type InboxState,
} from '../../src/tui/inbox/inbox-state';
import { wrapText } from '../../src/text/text-wrap';
import {
  lineAt,
  linkChoice,
  topAnchor,
  viewerReducer,
  initialViewerState,
  type ViewerAction,
  type ViewerState,
} from '../../src/tui/viewer/viewer-state';

const msg = (id: number, subject = `Subject ${id}`): MessageSummary => ({
  id: String(id),
  senderName: `Sender ${id}`,
  senderEmail: `s${id}@example.org`,
  subject,
  receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)),
});
const run = (state: InboxState, ...actions: InboxAction[]) => actions.reduce(inboxReducer, state);
const ids = (n: number) => Array.from({ length: n }, (_, i) => msg(i + 1));

describe('inbox reducer', () => {
  it('lists newest first, everything unread on first load, nothing "new" yet', () => {
    const s = run(initialInboxState(5), { type: 'listed', messages: ids(3) });
    expect(s.visible.map((m) => Number(m.id))).toEqual([3, 2, 1]);
    expect([...s.unread].map(Number).sort()).toEqual([1, 2, 3]);
    expect(s.fresh.size).toBe(0);
    expect(s.arrivals).toBe(0);
    expect(Number(selectedMessage(s)?.id)).toBe(3);
  });

  it('marks later arrivals new, counts them once, and keeps the selection on the same message', () => {
    let s = run(initialInboxState(5), { type: 'listed', messages: ids(3) }, { type: 'move', delta: 1 });
    expect(Number(selectedMessage(s)?.id)).toBe(2);
    s = run(s, { type: 'listed', messages: ids(5) });
    expect([...s.fresh].map(Number).sort()).toEqual([4, 5]);
    expect([s.arrivals, s.lastArrived]).toEqual([1, 2]);
    expect(Number(selectedMessage(s)?.id)).toBe(2);
    // The same listing again changes nothing, not even the object (idle polling draws nothing).
    expect(run(s, { type: 'listed', messages: ids(5) })).toBe(s);
  });

  it('opening clears unread and new; delete keeps it away even if an older listing brings it back', () => {
    let s = run(initialInboxState(5), { type: 'listed', messages: ids(2) }, { type: 'listed', messages: ids(3) });
    s = run(s, { type: 'opened', id: '3' });
    expect(s.unread.has('3') || s.fresh.has('3')).toBe(false);
    s = run(s, { type: 'removed', id: '3' }, { type: 'listed', messages: ids(3) });
    expect(s.visible.map((m) => Number(m.id))).toEqual([2, 1]);
    expect(Number(selectedMessage(s)?.id)).toBe(2);
  });

  it('forgets a deleted id once a listing comes without it, and shows a repeated id once', () => {
    let s = run(initialInboxState(5), { type: 'listed', messages: ids(3) }, { type: 'removed', id: '3' });
    s = run(s, { type: 'listed', messages: ids(3) });
    expect([...s.deleted].map(Number)).toEqual([3]);
    s = run(s, { type: 'listed', messages: ids(2) });
    expect(s.deleted.size).toBe(0);
    expect(s.visible.map((m) => Number(m.id))).toEqual([2, 1]);
    s = run(s, { type: 'listed', messages: [msg(4), msg(4), ...ids(2)] });
    expect(s.visible.map((m) => Number(m.id))).toEqual([4, 2, 1]);
    expect([s.lastArrived, s.unread.size]).toEqual([1, 3]);
  });

  it('starts from the saved read state: ids opened before are not unread, new arrivals are', () => {
    let s = run(initialInboxState(5, new Set(['1', '3', '99'])), { type: 'listed', messages: ids(3) });
    expect([...s.unread]).toEqual(['2']);
    s = run(s, { type: 'listed', messages: ids(4) });
    expect([[...s.unread].sort(), [...s.fresh]]).toEqual([['2', '4'], ['4']]);
    s = run(s, { type: 'opened', id: '4' });
    expect([...s.read].sort()).toEqual(['1', '3', '4', '99']);
    expect([...s.unread, ...s.fresh]).toEqual(['2']);
    // Opening a read message again changes nothing (no save, no redraw).
    expect(run(s, { type: 'opened', id: '4' })).toBe(s);
  });

  it("honours the service's own read state (seen), and a change of it", () => {
    const seen = (m: MessageSummary, value: boolean) => ({ ...m, seen: value });
    let s = run(initialInboxState(5), { type: 'listed', messages: [seen(msg(1), true), seen(msg(2), false)] });
    expect([...s.unread]).toEqual(['2']);
    s = run(s, { type: 'listed', messages: [seen(msg(1), true), seen(msg(2), true)] });
    expect(s.unread.size).toBe(0);
  });

  it('shows what the service changed in a listing of the same ids (subject, sender, attachments, time); the same listing changes nothing', () => {
    const s = run(initialInboxState(5), { type: 'listed', messages: ids(3) });
    expect(run(s, { type: 'listed', messages: ids(3) })).toBe(s);
    const changes: Array<(m: MessageSummary) => MessageSummary> = [
      (m) => ({ ...m, subject: 'Renamed' }),
      (m) => ({ ...m, senderName: 'Someone else' }),
      (m) => ({ ...m, hasAttachments: true }),
      (m) => ({ ...m, receivedAt: new Date(Date.UTC(2026, 0, 2)) }),
    ];
    for (const change of changes) {
      const next = run(s, { type: 'listed', messages: ids(3).map((m) => (m.id === '2' ? change(m) : m)) });
      expect(next.all.find((m) => m.id === '2')).toEqual(change(msg(2)));
      // The other rows keep their objects (memoized rows are not drawn again).
      expect(next.all.find((m) => m.id === '1')).toBe(s.all.find((m) => m.id === '1'));
    }
  });

  it('selects a message by id (the viewer moved to it), scrolling to it; an unknown id changes nothing', () => {
    let s = run(initialInboxState(4), { type: 'listed', messages: ids(20) }, { type: 'select', id: '5' });
    expect([selectedMessage(s)?.id, s.offset]).toEqual(['5', 12]);
    expect(run(s, { type: 'select', id: '404' })).toBe(s);
    s = run(s, { type: 'filter', text: 'Subject 1' }, { type: 'select', id: '5' });
    expect(selectedMessage(s)?.id).not.toBe('5');
  });

  it('keeps the selection inside the scroll window and pages like a pager', () => {
    let s = run(initialInboxState(4), { type: 'listed', messages: ids(20) });
    s = run(s, { type: 'move', delta: 5 });
    expect(s.offset).toBe(2);
    s = run(s, { type: 'last' });
    expect([Number(selectedMessage(s)?.id), s.offset]).toEqual([1, 16]);
    s = run(s, { type: 'first' });
    expect([Number(selectedMessage(s)?.id), s.offset]).toEqual([20, 0]);
    s = run(s, { type: 'page', direction: 1 });
    expect([Number(selectedMessage(s)?.id), s.offset]).toEqual([17, 3]);
    s = run(s, { type: 'move', delta: -100 });
    expect([Number(selectedMessage(s)?.id), s.offset]).toEqual([20, 0]);
    s = run(s, { type: 'viewport', rows: 2 }, { type: 'last' }, { type: 'viewport', rows: 10 });
    expect(s.offset).toBe(10);
  });

  it('filters by sender or subject, case-insensitively', () => {
    let s = run(initialInboxState(5), {
      type: 'listed',
      messages: [msg(1, 'Alpha'), msg(2, 'beta'), msg(3, 'BETA two')],
    });
    s = run(s, { type: 'filter', text: 'Beta' });
    expect(s.visible.map((m) => Number(m.id))).toEqual([3, 2]);
    s = run(s, { type: 'filter', text: 's1@' });
    expect(s.visible.map((m) => Number(m.id))).toEqual([1]);
    s = run(s, { type: 'filter', text: '' });
    expect(s.visible).toHaveLength(3);
  });

  it('moves through 10,000 messages (its cost is measured by npm run bench)', () => {
    const many = ids(10_000);
    let s = run(initialInboxState(20), { type: 'listed', messages: many });
    for (let i = 0; i < 100; i += 1) s = run(s, { type: 'move', delta: 1 });
    expect(Number(selectedMessage(s)?.id)).toBe(9_900);
  });

  it('dropped: counts the whole listings that leave out what was listed, not new mail, rows, keys or a cut one', () => {
    const cut = { unreadable: 0, stoppedAt: { bound: 'items' as const, limit: 3 } };
    let s = run(initialInboxState(5), { type: 'listed', messages: ids(3) });
    // The first listing: what was kept of this address before may be gone.
    expect(s.dropped).toBe(1);
    // New mail, a row changed, keys, the filter: nothing left out.
    s = run(
      s,
      { type: 'listed', messages: [...ids(3), msg(4)] },
      { type: 'listed', messages: [msg(1, 'Changed'), msg(2), msg(3), msg(4)] },
      { type: 'move', delta: 1 },
      { type: 'filter', text: 'Subject' },
    );
    expect(s.dropped).toBe(1);
    // Deleted on the service (and one arrived at the same time): counted.
    s = run(s, { type: 'listed', messages: [msg(2), msg(3), msg(4), msg(5)] });
    expect(s.dropped).toBe(2);
    // A listing that stopped at the bound while the service had more: not counted; the next whole one is,
    // though it lists the same.
    s = run(s, { type: 'listed', messages: [msg(3), msg(4), msg(5)], cut });
    expect(s.dropped).toBe(2);
    s = run(s, { type: 'listed', messages: [msg(3), msg(4), msg(5)] });
    expect(s.dropped).toBe(3);
    // Deleted here: counted once a listing no longer carries it (one on its way with it is not).
    s = run(s, { type: 'removed', id: '4' }, { type: 'listed', messages: [msg(3), msg(4), msg(5)] });
    expect(s.dropped).toBe(3);
    s = run(s, { type: 'listed', messages: [msg(3), msg(5)] });
    expect(s.dropped).toBe(4);
    // The same again, and an expired inbox listed empty.
    s = run(s, { type: 'listed', messages: [msg(3), msg(5)] });
    expect(s.dropped).toBe(4);
    s = run(s, { type: 'listed', messages: [] });
    expect(s.dropped).toBe(5);
  });
});

describe('viewer reducer', () => {
  it('scrolls within limits, and reveals a line (a search match) only when it is not shown', () => {
    let s = viewerReducer(initialViewerState, { type: 'scroll', delta: 5, max: 3 });
    expect(s.scroll).toBe(3);
    s = viewerReducer(s, { type: 'scroll', delta: -10, max: 3 });
    expect(s.scroll).toBe(0);
    s = viewerReducer(s, { type: 'bottom', max: 7 });
    expect(s.scroll).toBe(7);
    s = viewerReducer(s, { type: 'clamp', max: 2 });
    expect(s.scroll).toBe(2);
    s = viewerReducer(initialViewerState, { type: 'reveal', line: 5, rows: 10, max: 90 });
    expect(s).toBe(initialViewerState);
    s = viewerReducer(s, { type: 'reveal', line: 40, rows: 9, max: 90 });
    expect(s.scroll).toBe(37);
    s = viewerReducer(s, { type: 'reveal', line: 99, rows: 9, max: 90 });
    expect([s.scroll, s.atEnd]).toEqual([90, true]);
  });

  it('picks links by number, waiting for a second digit only when one could follow', () => {
    expect(linkChoice('', '3', 5)).toEqual({ pick: 3 });
    expect(linkChoice('', '9', 5)).toEqual({});
    expect(linkChoice('', '1', 12)).toEqual({ wait: '1' });
    expect(linkChoice('1', '2', 12)).toEqual({ pick: 12 });
    expect(linkChoice('', '2', 12)).toEqual({ pick: 2 });
    expect(linkChoice('', '0', 12)).toEqual({});
  });
});

describe('viewer re-wrap', () => {
  const text = Array.from(
    { length: 12 },
    (_, i) => `Paragraph ${i + 1} ${'lorem ipsum dolor sit amet '.repeat(6)}${i === 7 ? 'Zanzibar ' : ''}end.`,
  ).join('\n\n');
  const at = (width: number) => wrapText(text, width).split('\n');
  const view = (...actions: ViewerAction[]) => actions.reduce<ViewerState>(viewerReducer, initialViewerState);

  it('finds the line showing the same text at another width, for a line of words and for a blank line', () => {
    const wide = at(80);
    const narrow = at(50);
    const top = wide.findIndex((l) => l.includes('Zanzibar'));
    const moved = lineAt(narrow, topAnchor(wide, top));
    expect(`${narrow[moved]} ${narrow[moved + 1]}`).toContain('Zanzibar');
    expect(moved).not.toBe(top);
    const blank = wide.indexOf('', 10);
    const b = lineAt(narrow, topAnchor(wide, blank));
    expect(narrow[b]).toBe('');
    expect(narrow[b + 1]?.split(' ').slice(0, 2)).toEqual(wide[blank + 1]?.split(' ').slice(0, 2));
    expect(lineAt(narrow, topAnchor(wide, 0))).toBe(0);
  });

  it("keeps the reader's place through several re-wraps and a window that could not scroll that far", () => {
    const w80 = at(80);
    const top = w80.findIndex((l) => l.includes('Zanzibar'));
    let s = view({ type: 'scroll', delta: top, max: 1000 });
    s = viewerReducer(s, { type: 'rewrap', from: w80, to: at(30), max: 1000 });
    expect(at(30)[s.scroll]).toBeDefined();
    s = viewerReducer(s, { type: 'rewrap', from: at(30), to: at(120), max: 3 }); // too tall: clamped
    expect(s.scroll).toBe(3);
    s = viewerReducer(s, { type: 'rewrap', from: at(120), to: w80, max: 1000 });
    expect(s.scroll).toBe(top);
    // Scrolling sets a new place.
    s = viewerReducer(s, { type: 'scroll', delta: -2, max: 1000 });
    s = viewerReducer(s, { type: 'rewrap', from: w80, to: w80, max: 1000 });
    expect(s.scroll).toBe(top - 2);
  });

  it('stays at the end when the end was shown, through re-wraps and window changes', () => {
    let s = view({ type: 'bottom', max: 40 });
    s = viewerReducer(s, { type: 'rewrap', from: at(80), to: at(40), max: 70 });
    expect(s.scroll).toBe(70);
    s = viewerReducer(s, { type: 'clamp', max: 75 });
    expect(s.scroll).toBe(75);
    s = viewerReducer(s, { type: 'scroll', delta: -1, max: 75 });
    s = viewerReducer(s, { type: 'clamp', max: 80 });
    expect(s.scroll).toBe(74);
    s = viewerReducer(s, { type: 'scroll', delta: 10, max: 80 });
    expect(s.atEnd).toBe(true);
  });
});
