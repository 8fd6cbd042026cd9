/**
 * The picker's screen state as a reducer (as inbox-state.ts is for the inbox): which part of the screen
 * has the keys (the list, the help, the custom-name input, the "forget?" question), the line said on the
 * status bar, and the highlighted choice. The domain list and address creation are I/O: use-picker.ts.
 */
import type { Domain } from '../../model/mail-types';
import type { SavedSession } from '../../state/saved-sessions';
import type { Screen } from '../keymap/keymap';

export type PickerMode =
  | { kind: 'list' }
  | { kind: 'help' }
  /** The custom-name input on `domain`; `taken`: the service said the name is in use. */
  | { kind: 'custom'; domain: Domain; value: string; taken: boolean }
  /** "Forget this address?" is asked. */
  | { kind: 'forgetting'; session: SavedSession };

export interface PickerState {
  mode: PickerMode;
  /** A line for the status bar (a hint, "Cancelled"), until the next choice. */
  said: string | null;
  /**
   * ink-select-input reports moves, not its position: the highlighted key, valid for the items it was
   * reported with only (the list goes back to its top whenever its items change).
   */
  highlight: { items: string; key: string } | null;
}

export type PickerAction =
  | { type: 'highlight'; items: string; key: string }
  | { type: 'help'; open: boolean }
  /** A choice was made on the list: what was said is done with. */
  | { type: 'chose' }
  | { type: 'custom'; domain: Domain }
  /** The custom name as typed, already normalised. */
  | { type: 'typed'; value: string }
  | { type: 'taken' }
  /** Esc in the custom-name input. */
  | { type: 'back' }
  | { type: 'ask-forget'; session: SavedSession }
  | { type: 'answered-forget'; confirmed: boolean }
  | { type: 'say'; text: string };

export const initialPickerState: PickerState = { mode: { kind: 'list' }, said: null, highlight: null };

export function pickerReducer(state: PickerState, action: PickerAction): PickerState {
  const mode = state.mode;
  switch (action.type) {
    case 'highlight':
      return { ...state, highlight: { items: action.items, key: action.key } };
    case 'help':
      if (action.open) return mode.kind === 'list' ? { ...state, mode: { kind: 'help' } } : state;
      return mode.kind === 'help' ? { ...state, mode: { kind: 'list' } } : state;
    case 'chose':
      return { ...state, said: null };
    case 'custom':
      return { ...state, mode: { kind: 'custom', domain: action.domain, value: '', taken: false } };
    case 'typed':
      return mode.kind === 'custom' ? { ...state, mode: { ...mode, value: action.value, taken: false } } : state;
    case 'taken':
      // Esc may have closed the input while the request was out: then there is nothing to mark.
      return mode.kind === 'custom' ? { ...state, mode: { ...mode, taken: true } } : state;
    case 'back':
      return mode.kind === 'custom' ? { ...state, mode: { kind: 'list' } } : state;
    case 'ask-forget':
      return { ...state, mode: { kind: 'forgetting', session: action.session } };
    case 'answered-forget':
      return mode.kind === 'forgetting' ? { ...state, mode: { kind: 'list' }, said: action.confirmed ? null : 'Cancelled' } : state;
    case 'say':
      return { ...state, said: action.text };
  }
}

/** The keymap screen that has the keys. */
export function pickerScreen(state: PickerState): Screen {
  switch (state.mode.kind) {
    case 'forgetting':
      return 'confirm';
    case 'help':
      return 'help';
    case 'custom':
      return 'prefix';
    case 'list':
      return 'picker';
  }
}
