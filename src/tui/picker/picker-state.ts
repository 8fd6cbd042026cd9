/**
 * The picker's screen state as a reducer (as inbox-state.ts is for the inbox): which part of the screen
 * has the keys (the list, the help, the custom-name input, the "forget?" question), the line said on the
 * status bar, and the highlighted choice with the window of the list that is shown (moves stop at the
 * ends, never wrap around). The domain list and address creation are I/O: use-picker.ts.
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
   * The highlighted choice (`index`) and the first one shown (`top`), valid for the list they were
   * moved on (`items`: its keys, one a line). When the list changes (the service's domains arrive after
   * the saved addresses, a saved one is forgotten) the same choice stays highlighted where it still is;
   * a list without it starts at its top. Null before any move: then the start choice (picker-start.ts).
   */
  highlight: { items: string; index: number; top: number } | null;
}

/** Where a move goes: a choice, a page (the rows shown), or an end of the list. */
export type PickerMove = 'up' | 'down' | 'pageUp' | 'pageDown' | 'first' | 'last';

export type PickerAction =
  /**
   * A move on the list `items` (its keys) of `count` choices, `rows` of which are shown; `start`: the
   * key highlighted before any move.
   */
  | { type: 'move'; items: string; count: number; rows: number; to: PickerMove; start?: string }
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
    case 'move': {
      const { items, count, rows, start } = action;
      const at = pickerWindow(state, items, count, rows, start);
      const page = Math.max(1, rows - 1);
      const target = {
        up: at.index - 1,
        down: at.index + 1,
        pageUp: at.index - page,
        pageDown: at.index + page,
        first: 0,
        last: count - 1,
      }[action.to];
      // No wraparound: a move past an end stays at that end. A page turns the window with it, as the inbox does.
      const index = Math.min(Math.max(0, count - 1), Math.max(0, target));
      const turn = action.to === 'pageDown' ? page : action.to === 'pageUp' ? -page : 0;
      const moved: PickerState = { ...state, highlight: { items, index, top: Math.max(0, at.top + turn) } };
      return { ...state, highlight: { items, ...pickerWindow(moved, items, count, rows) } };
    }
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
      return mode.kind === 'forgetting'
        ? { ...state, mode: { kind: 'list' }, said: action.confirmed ? null : 'Cancelled' }
        : state;
    case 'say':
      return { ...state, said: action.text };
  }
}

// The highlight moved on another list, carried over to `items` by its choice's key; before any move, the
// `start` choice where the list has it.
function carried(h: PickerState['highlight'], items: string, start?: string): { index: number; top: number } {
  if (!h) return { index: start === undefined ? 0 : Math.max(0, items.split('\n').indexOf(start)), top: 0 };
  if (h.items === items) return h;
  const key = h.items.split('\n')[h.index];
  const index = key === undefined ? -1 : items.split('\n').indexOf(key);
  return index < 0 ? { index: 0, top: 0 } : { index, top: Math.max(0, h.top + index - h.index) };
}

/**
 * The highlighted choice and the first one shown, for the list `items` of `count` choices in `rows`
 * rows: the highlight kept inside the window with the least scrolling, the window never past the end
 * (a resize or a shorter list pulls it back).
 */
export function pickerWindow(
  state: PickerState,
  items: string,
  count: number,
  rows: number,
  start?: string,
): { index: number; top: number } {
  const h = carried(state.highlight, items, start);
  const shown = Math.max(1, rows);
  const index = Math.min(Math.max(0, count - 1), Math.max(0, h.index));
  let top = Math.min(h.top, Math.max(0, count - shown));
  if (index < top) top = index;
  if (index >= top + shown) top = index - shown + 1;
  return { index, top: Math.max(0, top) };
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
