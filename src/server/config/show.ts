import { safeLine } from '../../text/safe-text';

/**
 * A value from the command line or a config file, quoted for an error message. JSON quoting escapes C0
 * controls but not C1 or bidi controls, and a config file's `\u001b` is a real ESC once parsed: the
 * result goes through the terminal-safe boundary too, as everything written to a terminal does.
 */
export function show(value: unknown): string {
  return safeLine(JSON.stringify(value) ?? String(value), 120);
}
