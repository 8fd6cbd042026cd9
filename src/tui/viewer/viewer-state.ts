/**
 * The viewer as a reducer: scroll position, the link number being typed and the link picked (for `y`
 * and `o`). Limits (how far one may scroll) come with the actions, since they depend on the rendered
 * body and the window. A re-wrap (the window resized) keeps the text at the top of the window, not the
 * line number. The view itself (headers shown, source or message, text or HTML part) is the session's
 * (ViewerMode): it stays the same from one message to the next.
 */

/** How the viewer shows a message; kept by the session across messages (J/K) and reopened ones. */
export interface ViewerMode {
  /** From, To, Cc and Date shown (`H`). */
  headers: boolean;
  /** The raw source instead of the message (`R`). */
  source: boolean;
  /** The part shown when a message has both (`t`); the other one when it has only that. */
  part: 'html' | 'text';
}

export const initialViewerMode: ViewerMode = { headers: true, source: false, part: 'html' };

export interface ViewerState {
  scroll: number;
  /** The window shows the end of the body: it stays there when the body is re-wrapped or the window resized. */
  atEnd: boolean;
  /**
   * Where in the text the top line was when the reader last scrolled, kept through re-wraps (and
   * windows too tall to scroll that far) so that resizing back and forth comes back to the same line.
   */
  anchor: TextAnchor | null;
  /** Digits typed so far to pick a link ("1" waits for "12" when there are 12 links). */
  linkDigits: string;
  /** Number of the picked link, or null. */
  picked: number | null;
}

export type ViewerAction =
  | { type: 'scroll'; delta: number; max: number }
  | { type: 'top' }
  | { type: 'bottom'; max: number }
  /** Brings `line` into a window of `rows` lines (a third down from the top), unless it is shown already. */
  | { type: 'reveal'; line: number; rows: number; max: number }
  | { type: 'clamp'; max: number }
  /** The body was wrapped anew (`from` the lines shown so far `to` these): keep the same text on top. */
  | { type: 'rewrap'; from: readonly string[]; to: readonly string[]; max: number }
  | { type: 'linkDigits'; digits: string }
  | { type: 'pick'; n: number | null };

export const initialViewerState: ViewerState = { scroll: 0, atEnd: false, anchor: null, linkDigits: '', picked: null };

const clamp = (n: number, max: number) => Math.max(0, Math.min(Math.max(0, max), n));

/** The reducer; exhaustive over ViewerAction. */
export function viewerReducer(state: ViewerState, action: ViewerAction): ViewerState {
  switch (action.type) {
    case 'scroll': {
      const scroll = clamp(state.scroll + action.delta, action.max);
      return scroll === state.scroll
        ? state
        : { ...state, scroll, atEnd: action.max > 0 && scroll >= action.max, anchor: null };
    }
    case 'top':
      return state.scroll === 0 && !state.atEnd ? state : { ...state, scroll: 0, atEnd: false, anchor: null };
    case 'bottom':
      return { ...state, scroll: Math.max(0, action.max), atEnd: true, anchor: null };
    case 'reveal': {
      if (action.line >= state.scroll && action.line < state.scroll + action.rows) return state;
      const scroll = clamp(action.line - Math.floor(action.rows / 3), action.max);
      return { ...state, scroll, atEnd: action.max > 0 && scroll >= action.max, anchor: null };
    }
    case 'clamp': {
      const scroll = state.atEnd ? Math.max(0, action.max) : clamp(state.scroll, action.max);
      return scroll === state.scroll ? state : { ...state, scroll };
    }
    case 'rewrap': {
      if (state.atEnd) return { ...state, scroll: Math.max(0, action.max) };
      const anchor = state.anchor ?? topAnchor(action.from, state.scroll);
      return { ...state, scroll: clamp(lineAt(action.to, anchor), action.max), anchor };
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

// Wrapping only moves line breaks and adds or drops spaces, list indents and quote markers: the letters
// and digits stay the same and in order, whatever the width. So "how many come before the top line" names
// the same place in the text at any width.
const NOT_LETTER = /[^\p{L}\p{N}]/gu;
const letters = (line: string): number => line.replace(NOT_LETTER, '').length;

/** A place in the text independent of wrapping: letters and digits before it, and whether a letter is at it. */
export interface TextAnchor {
  before: number;
  onLetter: boolean;
}

/** The place in the text where line `scroll` of `lines` starts. */
export function topAnchor(lines: readonly string[], scroll: number): TextAnchor {
  let before = 0;
  for (let i = 0; i < scroll && i < lines.length; i++) before += letters(lines[i] as string);
  return { before, onLetter: scroll < lines.length && letters(lines[scroll] as string) > 0 };
}

/**
 * The line of `lines` showing `anchor`: the one holding that letter (or, for an anchor on a blank line,
 * the first line after the same text). Same text, other wrapping.
 */
export function lineAt(lines: readonly string[], anchor: TextAnchor): number {
  if (anchor.before === 0 && !anchor.onLetter) return 0;
  let seen = 0;
  for (let line = 0; line < lines.length; line++) {
    const n = letters(lines[line] as string);
    if (anchor.onLetter ? seen + n > anchor.before : seen >= anchor.before) return line;
    seen += n;
  }
  return Math.max(0, lines.length - 1);
}
