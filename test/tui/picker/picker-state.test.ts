import { describe, expect, it } from 'vitest';
import type { Domain } from '../../../src/model/mail-types';
import type { SavedSession } from '../../../src/state/saved-sessions';
import { initialPickerState, pickerReducer, pickerScreen, type PickerAction, type PickerState } from '../../../src/tui/picker/picker-state';

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

  it('a choice clears what was said; the highlight is kept with the items it was reported for', () => {
    const s = run({ type: 'say', text: 'x forgets a saved address' }, { type: 'highlight', items: 'a\nb', key: 'b' }, { type: 'chose' });
    expect(s.said).toBeNull();
    expect(s.highlight).toEqual({ items: 'a\nb', key: 'b' });
  });
});
