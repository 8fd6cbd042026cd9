/**
 * The viewer as a reducer: scroll position, header visibility, the link number being typed and the link
 * picked (for `y` and `o`). Limits
 * (how far one may scroll) come with the actions, since they depend on the rendered body and the window.
 */

export interface ViewerState {
  scroll: number;
  showHeaders: boolean;
  /** Digits typed so far to pick a link ("1" waits for "12" when there are 12 links). */
  linkDigits: string;
  /** Number of the picked link, or null. */
  picked: number | null;
}

export type ViewerAction =
  | { type: 'scroll'; delta: number; max: number }
  | { type: 'top' }
  | { type: 'bottom'; max: number }
  | { type: 'toggleHeaders' }
  | { type: 'clamp'; max: number }
  | { type: 'linkDigits'; digits: string }
  | { type: 'pick'; n: number | null };

export const initialViewerState: ViewerState = { scroll: 0, showHeaders: true, linkDigits: '', picked: null };

const clamp = (n: number, max: number) => Math.max(0, Math.min(Math.max(0, max), n));

/** The reducer; exhaustive over ViewerAction. */
export function viewerReducer(state: ViewerState, action: ViewerAction): ViewerState {
  switch (action.type) {
    case 'scroll': {
      const scroll = clamp(state.scroll + action.delta, action.max);
      return scroll === state.scroll ? state : { ...state, scroll };
    }
    case 'top':
      return state.scroll === 0 ? state : { ...state, scroll: 0 };
    case 'bottom':
      return { ...state, scroll: Math.max(0, action.max) };
    case 'toggleHeaders':
      return { ...state, showHeaders: !state.showHeaders };
    case 'clamp': {
      const scroll = clamp(state.scroll, action.max);
      return scroll === state.scroll ? state : { ...state, scroll };
    }
    case 'linkDigits':
      return { ...state, linkDigits: action.digits };
    case 'pick':
      return { ...state, picked: action.n, linkDigits: '' };
  }
}

/**
 * What typing `digit` after `typed` means with `count` links: pick link n now, wait for another digit
 * (a longer number could still follow), or nothing (no such link).
 */
export function linkChoice(typed: string, digit: string, count: number): { pick?: number; wait?: string } {
  const digits = `${typed}${digit}`.replace(/^0+/, '');
  const n = Number(digits);
  if (!digits || n > count) return {};
  // "1" with 12 links might become "10"-"12": wait; "2" cannot grow into a link number: pick now.
  return n * 10 <= count ? { wait: digits } : { pick: n };
}
