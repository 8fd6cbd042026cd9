/**
 * The one way screens read keys: the keymap says which command a key means on this screen, and the
 * screen supplies what each command does. Only the focused screen passes `isActive: true`.
 */
import { useInput } from 'ink';
import { useCallback, useRef } from 'react';
import { commandFor, type Command, type Screen } from '../keymap/keymap';

/** What a screen does per command; the typed input is passed for digit commands. */
export type CommandHandlers = Partial<Record<Command, (input: string) => void>>;

/** Routes keys on `screen` to `handlers` through the keymap while `isActive`. */
export function useKeys(screen: Screen, handlers: CommandHandlers, options: { isActive: boolean }): void {
  // The handlers change every render; a ref keeps Ink's listener stable instead of re-subscribing.
  const ref = useRef(handlers);
  ref.current = handlers;
  const onInput = useCallback(
    (input: string, key: Parameters<Parameters<typeof useInput>[0]>[1]) => {
      const command = commandFor(screen, input, key);
      if (command) ref.current[command]?.(input);
    },
    [screen],
  );
  useInput(onInput, { isActive: options.isActive });
}
