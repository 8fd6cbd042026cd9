/**
 * The header rows of the viewer: From, To, Cc and Subject wrapped under the value column (a long subject
 * or sender is otherwise never readable in full), up to a few lines each and cut with … past that; Date
 * stays one line. On a short terminal the headers give lines back so the body keeps some room.
 */
import { truncateToWidth } from '../../text/text-width';
import { wrapText } from '../../text/text-wrap';
import type { Message, MessageSummary } from '../../model/mail-types';
import { longTime, senderFull, subjectLabel } from '../wording/display-format';
import { LABEL_COLS } from './viewer-extras';

/** Lines a wrapped header value may take at most. */
export const MAX_HEADER_LINES = 3;
// The body keeps at least this many lines before the headers are wrapped less.
const MIN_BODY_ROWS = 3;

/** The header lines of a message: From, To, Cc, Subject, Date (attachments are listed by viewer-extras). */
export function headerLines(m: MessageSummary & Partial<Message>, full: boolean): [string, string][] {
  const lines: [string, string][] = [];
  if (full) lines.push(['From', senderFull(m)]);
  if (full && m.to?.length) lines.push(['To', m.to.join(', ')]);
  if (full && m.cc?.length) lines.push(['Cc', m.cc.join(', ')]);
  lines.push(['Subject', subjectLabel(m.subject)]);
  if (full) lines.push(['Date', longTime(m.receivedAt)]);
  return lines;
}

/**
 * `value` as label/value rows at most `width` wide: wrapped at spaces over up to `maxLines` lines, the
 * last one cut with … when more remains. A label of '' continues the row above.
 */
export function wrapValue(label: string, value: string, width: number, maxLines: number): [string, string][] {
  const wrapped = wrapText(value, width).split('\n');
  const shown = wrapped.slice(0, Math.max(1, maxLines));
  if (wrapped.length > shown.length) {
    // The last line shown takes what it can of the rest (it may have broken early at a space).
    const rest = wrapped.slice(shown.length - 1).join(' ');
    shown[shown.length - 1] = truncateToWidth(rest, width);
  }
  return shown.map((line, i) => [i === 0 ? label : '', line]);
}

/**
 * The header rows wrapped for `columns`, with as many lines per value as leave `rows` room for
 * `extra` more rows (code, link, attachments), the rule and a few lines of body.
 */
export function wrappedHeaders(
  headers: readonly [string, string][],
  columns: number,
  rows: number,
  extra: number,
): [string, string][] {
  const width = Math.max(1, columns - LABEL_COLS);
  let out: [string, string][] = [];
  for (let maxLines = MAX_HEADER_LINES; maxLines >= 1; maxLines--) {
    out = headers.flatMap(([label, value]) =>
      label === 'Date' ? [[label, value] as [string, string]] : wrapValue(label, value, width, maxLines),
    );
    if (out.length + extra + 1 + MIN_BODY_ROWS <= rows) break;
  }
  return out;
}
