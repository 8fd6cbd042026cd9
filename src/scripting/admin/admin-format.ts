/**
 * What `tempmail-tui admin` prints: the service's answers as tab-separated lines (one row a line, a
 * stable column order) and a short note on stderr for an action. Every string came from the service
 * (and, in rows, from strangers' mail): each passes the terminal-safe boundary, bounded in length.
 */
import { safeLine } from '../../text/safe-text';

const cell = (value: unknown, max = 300): string =>
  safeLine(value === null || value === undefined ? '-' : String(value), max).replace(/\t/g, ' ');
const row = (...values: unknown[]): string => values.map((v) => cell(v)).join('\t');
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((v) => v && typeof v === 'object') : [];

/** The answer of `command` as lines for stdout, and a note for stderr. */
export function formatAnswer(
  command: string,
  answer: Record<string, unknown>,
  args: string[],
): { lines: string[]; note?: string } {
  switch (command) {
    case 'stats':
      return { lines: ['sessions', 'messages', 'bytes', 'blocks', 'event_streams'].map((k) => row(k, answer[k])) };
    case 'sessions':
      return { lines: list(answer.sessions).map((s) => row(s.id, s.email, s.created_at, s.expires_at, s.messages)) };
    case 'messages':
      return {
        lines: list(answer.messages).map((m) =>
          row(m.session_id, m.id, m.received_at, m.client_ip, m.envelope_from, m.sender_email, m.recipient, m.subject),
        ),
      };
    case 'blocks':
      return { lines: list(answer.blocks).map((b) => row(b.kind, b.value, b.created_at)) };
    case 'delete-session':
      return { lines: [], note: `Deleted session ${cell(args[0])}` };
    case 'delete-message':
      return { lines: [], note: `Deleted message ${cell(args[1])} of session ${cell(args[0])}` };
    case 'block':
      return {
        lines: [],
        note: `${answer.added === false ? 'Already blocked' : 'Blocked'}: ${cell(answer.kind)} ${cell(answer.value)}`,
      };
    default:
      return { lines: [], note: `Unblocked: ${cell(args[0])} ${cell(args[1])}` };
  }
}

/** The service's answer made safe to print as JSON: every string (keys too) terminal-safe and bounded. */
export function safeJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return safeLine(value, 2000);
  if (depth > 8 || value === null || typeof value !== 'object')
    return typeof value === 'number' || typeof value === 'boolean' ? value : null;
  if (Array.isArray(value)) return value.slice(0, 10_000).map((v) => safeJson(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [safeLine(k, 100), safeJson(v, depth + 1)]));
}
