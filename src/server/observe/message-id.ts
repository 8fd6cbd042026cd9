/**
 * The Message-ID of a raw message, for a log line: what a sender quotes when asking "did my message
 * arrive?". Read from the header block only, bounded before any pattern runs on it; the log makes it
 * terminal-safe like every other field.
 */

/** How much of the message is looked at: the header block, at most this much of it. */
const HEAD_BYTES = 64 * 1024;
const MAX_ID = 250;

/** The Message-ID header's value (`<...>`), or undefined when the message has none. */
export function messageIdOf(raw: Buffer): string | undefined {
  const head = raw.subarray(0, HEAD_BYTES).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const block = end >= 0 ? head.slice(0, end) : head;
  // Header lines may be folded (a continuation starts with white space).
  const match = /(?:^|\n)message-id[ \t]*:((?:[^\n]*)(?:\n[ \t][^\n]*)*)/i.exec(block);
  if (!match) return undefined;
  const value = match[1]!.replace(/\r?\n[ \t]+/g, ' ').trim();
  if (value === '') return undefined;
  return value.length > MAX_ID ? `${value.slice(0, MAX_ID)}…` : value;
}
