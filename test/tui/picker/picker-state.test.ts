import { describe, expect, it } from 'vitest';
import type { Domain } from '../../../src/model/mail-types';
import type { SavedSession } from '../../../src/state/saved-sessions';
import {
  initialPickerState,
  pickerReducer,
  pickerScreen,
  pickerWindow,
  type PickerAction,
  type PickerMove,
  type PickerState,
} from '../../../src/tui/picker/picker-state';

const domain: Domain = { id: 1, domain: 'tempmail.test' };
const saved = { email: 'a@tempmail.test' } as SavedSession;
const run = (...actions: PickerAction[]) => actions.reduce(pickerReducer, initialPickerState);

describe('picker reducer', () => {
  it('starts on the list, with nothing said', () => {
    expect(pickerScreen(initialPickerState)).toBe('picker');
    expect(initialPickerState.said).toBeNull();
  });

  it('the custom input keeps the typed name, marks a taken one, and a new keystroke clears the mark', () => {
    let s = run({ type: 'custom', domain }, { type: 'typed', value: 'jane' }, { type: 'taken' });
    expect(s.mode).toEqual({ kind: 'custom', domain, value: 'jane', taken: true });
    expect(pickerScreen(s)).toBe('prefix');
    s = pickerReducer(s, { type: 'typed', value: 'jane2' });
    expect(s.mode).toEqual({ kind: 'custom', domain, value: 'jane2', taken: false });
    expect(pickerScreen(pickerReducer(s, { type: 'back' }))).toBe('picker');
  });

  it('a late "taken" after Esc changes nothing', () => {
    const s = run({ type: 'custom', domain }, { type: 'back' });
    expect(pickerReducer(s, { type: 'taken' })).toBe(s);
  });

  it('forget asks; no says Cancelled, yes says nothing; both go back to the list', () => {
    const asked = run({ type: 'say', text: 'hint' }, { type: 'ask-forget', session: saved });
    expect(pickerScreen(asked)).toBe('confirm');
    const no = pickerReducer(asked, { type: 'answered-forget', confirmed: false });
    expect([pickerScreen(no), no.said]).toEqual(['picker', 'Cancelled']);
    const yes = pickerReducer(asked, { type: 'answered-forget', confirmed: true });
    expect([pickerScreen(yes), yes.said]).toEqual(['picker', null]);
  });

  it('help opens from the list only, and closes back to it', () => {
    const open = run({ type: 'help', open: true });
    expect(pickerScreen(open)).toBe('help');
    expect(pickerScreen(pickerReducer(open, { type: 'help', open: false }))).toBe('picker');
    const typing: PickerState = run({ type: 'custom', domain });
    expect(pickerReducer(typing, { type: 'help', open: true })).toBe(typing);
  });

  it('a choice clears what was said; the highlight is kept with the items it was moved on', () => {
    const s = run(
      { type: 'say', text: 'x forgets a saved address' },
      { type: 'move', items: 'a\nb', count: 2, rows: 5, to: 'down' },
      { type: 'chose' },
    );
    expect(s.said).toBeNull();
    expect(pickerWindow(s, 'a\nb', 2, 5)).toEqual({ index: 1, top: 0 });
    // A list without the highlighted choice starts at its top.
    expect(pickerWindow(s, 'a\nc', 2, 5)).toEqual({ index: 0, top: 0 });
  });

  it('a list that changes keeps the highlighted choice where it is now (domains arriving, a saved one forgotten)', () => {
    const saved = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const s = run(
      ...Array.from({ length: 12 }, () => ({
        type: 'move' as const,
        items: saved.join('\n'),
        count: 20,
        rows: 10,
        to: 'down' as const,
      })),
    );
    expect(pickerWindow(s, saved.join('\n'), 20, 10)).toEqual({ index: 12, top: 3 });
    // The service's choices come after the saved ones: s12 stays highlighted, the window where it was.
    const withDomains = [...saved, 'random a', 'custom a'].join('\n');
    expect(pickerWindow(s, withDomains, 22, 10)).toEqual({ index: 12, top: 3 });
    // s0 forgotten: s12 is one up, and the window with it.
    const forgotten = saved.slice(1).join('\n');
    expect(pickerWindow(s, forgotten, 19, 10)).toEqual({ index: 11, top: 2 });
    // A move on the new list goes on from there.
    const next = pickerReducer(s, { type: 'move', items: withDomains, count: 22, rows: 10, to: 'last' });
    expect(pickerWindow(next, withDomains, 22, 10)).toEqual({ index: 21, top: 12 });
  });

  it('moves stop at the ends (no wraparound), page by the rows shown, and g/G go to the ends', () => {
    const items = Array.from({ length: 34 }, (_, i) => `k${i}`).join('\n');
    const move = (to: PickerMove) => ({ type: 'move' as const, items, count: 34, rows: 10, to });
    const at = (s: PickerState) => pickerWindow(s, items, 34, 10);
    expect(at(run(move('up')))).toEqual({ index: 0, top: 0 });
    expect(at(run(move('last')))).toEqual({ index: 33, top: 24 });
    expect(at(run(move('last'), move('down')))).toEqual({ index: 33, top: 24 });
    expect(at(run(move('last'), move('first')))).toEqual({ index: 0, top: 0 });
    // Down past the window scrolls by one; a page moves by the rows shown less one (a line of context).
    expect(at(run(...Array.from({ length: 10 }, () => move('down'))))).toEqual({ index: 10, top: 1 });
    expect(at(run(move('pageDown')))).toEqual({ index: 9, top: 9 });
    expect(at(run(move('pageDown'), move('pageDown')))).toEqual({ index: 18, top: 18 });
    expect(at(run(move('pageDown'), move('pageDown'), move('pageDown'), move('pageDown')))).toEqual({
      index: 33,
      top: 24,
    });
    expect(at(run(move('last'), move('pageUp')))).toEqual({ index: 24, top: 15 });
    expect(at(run(move('last'), move('pageUp'), move('pageUp'), move('pageUp'), move('pageUp')))).toEqual({
      index: 0,
      top: 0,
    });
  });

  it('the window follows a resize and a shorter list, the highlight always inside it', () => {
    const items = Array.from({ length: 34 }, (_, i) => `k${i}`).join('\n');
    const s = run({ type: 'move', items, count: 34, rows: 10, to: 'last' });
    expect(pickerWindow(s, items, 34, 20)).toEqual({ index: 33, top: 14 });
    expect(pickerWindow(s, items, 34, 3)).toEqual({ index: 33, top: 31 });
    expect(pickerWindow(s, items, 5, 10)).toEqual({ index: 4, top: 0 });
  });
});
