import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { applyKey } from '../../../src/tui/widgets/text-input';

const NONE: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const ctrl = (input: string) => [input, { ...NONE, ctrl: true }] as const;

describe('the text input', () => {
  it('takes readline line keys: Ctrl+A/E move, Ctrl+U clears before the cursor, Ctrl+W the word before it', () => {
    let edit = { value: 'jane.doe-2026', cursor: 13 };
    edit = applyKey(edit, ...ctrl('w'))!;
    expect(edit).toEqual({ value: 'jane.doe-', cursor: 9 });
    edit = applyKey(edit, ...ctrl('w'))!;
    expect(edit).toEqual({ value: 'jane.', cursor: 5 });
    edit = applyKey(edit, ...ctrl('a'))!;
    expect(edit.cursor).toBe(0);
    edit = applyKey(edit, ...ctrl('e'))!;
    expect(edit.cursor).toBe(5);
    edit = applyKey({ value: 'abcdef', cursor: 4 }, ...ctrl('u'))!;
    expect(edit).toEqual({ value: 'ef', cursor: 0 });
    // Other control keys are not text and not for the input.
    expect(applyKey(edit, ...ctrl('x'))).toBeNull();
  });
});
