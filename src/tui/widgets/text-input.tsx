/**
 * A one-line text input that never loses a key. ink-text-input computes each new value from the value
 * of its last render, so two keys that arrive before a re-render (a fast typist over SSH, where each
 * key is its own chunk) overwrite each other. This one keeps the value and cursor in a ref, updated on
 * every key, and takes the `value` prop back only when the parent changes it (e.g. lower-casing it).
 */
import { Text, useInput, type Key } from 'ink';
import { useRef, useState } from 'react';
import { useTheme } from './theme';

export interface TextInputProps {
  value: string;
  /** Called with the whole new value after every edit. */
  onChange: (value: string) => void;
  /** Enter: called with the value as typed so far (never a stale one). */
  onSubmit?: (value: string) => void;
  placeholder?: string;
  /** Only the focused input reads keys. */
  focus?: boolean;
}

interface Edit {
  value: string;
  cursor: number;
}

// Keys that belong to the screen around the input, not to the text.
const passThrough = (input: string, key: Key) =>
  key.upArrow ||
  key.downArrow ||
  key.tab ||
  key.escape ||
  key.pageUp ||
  key.pageDown ||
  key.ctrl ||
  key.meta ||
  input === '';

/** The edit a key makes to `edit` (null: the key is not for the input). */
export function applyKey(edit: Edit, input: string, key: Key): Edit | null {
  const { value, cursor } = edit;
  if (key.leftArrow) return { value, cursor: Math.max(0, cursor - 1) };
  if (key.rightArrow) return { value, cursor: Math.min(value.length, cursor + 1) };
  // Readline's line keys, which shell users type without thinking: Ctrl+A/E, Ctrl+U, Ctrl+W.
  if (key.home || (key.ctrl && input === 'a')) return { value, cursor: 0 };
  if (key.end || (key.ctrl && input === 'e')) return { value, cursor: value.length };
  if (key.ctrl && input === 'u') return { value: value.slice(cursor), cursor: 0 };
  if (key.ctrl && input === 'w') {
    const start = value.slice(0, cursor).replace(/[^\s.\-_+]*[\s.\-_+]*$/, '').length;
    return { value: value.slice(0, start) + value.slice(cursor), cursor: start };
  }
  // Terminals send DEL (0x7f, "delete" to Ink) for the Backspace key: both erase before the cursor.
  if (key.backspace || key.delete) {
    return cursor === 0 ? edit : { value: value.slice(0, cursor - 1) + value.slice(cursor), cursor: cursor - 1 };
  }
  if (passThrough(input, key)) return null;
  // A paste may carry line breaks and other controls: a one-line input keeps only the text.
  const text = input.replace(/[\x00-\x1f\x7f]/g, '');
  if (text === '') return null;
  return { value: value.slice(0, cursor) + text + value.slice(cursor), cursor: cursor + text.length };
}

/** The input, drawn as its text with an inverse cursor (or the placeholder, dimmed, when empty). */
export function TextInput({ value, onChange, onSubmit, placeholder = '', focus = true }: TextInputProps) {
  const theme = useTheme();
  const edit = useRef<Edit>({ value, cursor: value.length });
  const seen = useRef(value);
  // The parent changed the value (normalized it, cleared it): that is the text from now on.
  if (value !== seen.current) {
    seen.current = value;
    // The cursor keeps its place, shifted by what the change added or removed (a space dropped before it).
    const shifted = edit.current.cursor + value.length - edit.current.value.length;
    edit.current = { value, cursor: Math.max(0, Math.min(value.length, shifted)) };
  }
  // The cursor lives in the ref; this only makes a cursor move (no value change) redraw.
  const [, redraw] = useState(0);
  const latest = useRef({ onChange, onSubmit });
  latest.current = { onChange, onSubmit };

  useInput(
    (input, key) => {
      if (key.return) {
        latest.current.onSubmit?.(edit.current.value);
        return;
      }
      const next = applyKey(edit.current, input, key);
      if (!next) return;
      const changed = next.value !== edit.current.value;
      edit.current = next;
      if (changed) {
        seen.current = next.value;
        latest.current.onChange(next.value);
      }
      redraw((n) => n + 1);
    },
    { isActive: focus },
  );

  const { value: text, cursor } = edit.current;
  if (text === '') {
    if (!focus) return <Text color={theme.color('muted')}>{placeholder}</Text>;
    return (
      <Text>
        <Text inverse>{placeholder.charAt(0) || ' '}</Text>
        <Text color={theme.color('muted')}>{placeholder.slice(1)}</Text>
      </Text>
    );
  }
  if (!focus) return <Text>{text}</Text>;
  return (
    <Text>
      {text.slice(0, cursor)}
      <Text inverse>{text.charAt(cursor) || ' '}</Text>
      {text.slice(cursor + 1)}
    </Text>
  );
}
