/**
 * The viewer's source view (`R`) as lines: the raw message decoded (UTF-8 where it is valid, else
 * Latin-1, so 8-bit mail shows its letters rather than replacement marks) and made terminal-safe right
 * after that decoding step, then cut at the width (a source line is not reflowed, only folded). Where
 * the service gives no raw message, the fields it returned, under a note that says so. A big message
 * (10 MB) is done in slices with event-loop yields, like a big body, so keys are never held up.
 */
import { safeBlock } from '../../text/safe-text';
import { wrapText } from '../../text/text-wrap';
import type { Message, MessageSource } from '../../model/mail-types';
import { longTime } from '../wording/display-format';

// A slice of text made safe and folded at a time: a few ms on a slow machine.
const SLICE_CHARS = 32 * 1024;

/** What the source view says above the fields when there is no raw message. */
export const FIELDS_NOTE = 'This service gives no raw message; below: every field it returned.';
/** The same, for a service whose client cannot ask for the source at all. */
export const PARSED_NOTE = 'This service gives no raw message; below: every field read from it.';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw bytes as text: UTF-8 when they are valid UTF-8, else Latin-1 (every byte one character). */
export function decodeSource(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
}

/** Field lines: "name: value", a value of several lines indented under its name. */
export function fieldText(note: string, fields: readonly (readonly [string, string])[]): string {
  const body = fields.map(([name, value]) =>
    value.includes('\n') ? `${name}:\n${value.replace(/^/gm, '  ')}` : `${name}: ${value}`,
  );
  return [`[${note}]`, '', ...body].join('\n');
}

/** The fields of a parsed message, for a service whose client has no readSource. */
export function messageFields(m: Message): [string, string][] {
  const fields: [string, string][] = [
    ['id', String(m.id)],
    ['from', m.senderName && m.senderEmail ? `${m.senderName} <${m.senderEmail}>` : m.senderName || m.senderEmail],
    ['to', m.to.join(', ')],
    ['cc', m.cc.join(', ')],
    ['subject', m.subject],
    ['received', m.receivedAt ? longTime(m.receivedAt) : ''],
  ];
  for (const [name, value] of Object.entries(m.headers ?? {})) fields.push([`header ${name}`, value]);
  for (const a of m.attachments)
    fields.push([`attachment ${a.id}`, `${a.filename} · ${a.contentType} · ${a.size} bytes`]);
  fields.push(['body_text', m.bodyText ?? '(none)'], ['body_html', m.bodyHtml ?? '(none)']);
  return fields;
}

/** The text the source view shows, before folding (raw bytes are decoded here, not yet made safe). */
export function sourceText(source: MessageSource): string {
  return source.kind === 'raw' ? decodeSource(source.bytes) : fieldText(FIELDS_NOTE, source.fields);
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// The next slice ends after a line break (a CRLF is never split), or at SLICE_CHARS on a huge line.
function sliceEnd(text: string, from: number): number {
  if (text.length - from <= SLICE_CHARS * 1.5) return text.length;
  const nl = text.indexOf('\n', from + SLICE_CHARS);
  return nl >= 0 && nl < from + SLICE_CHARS * 2 ? nl + 1 : from + SLICE_CHARS;
}

/** One slice made terminal-safe and folded at `width` (`words`: at spaces, for field listings): its lines. */
function foldSlice(text: string, width: number, words: boolean): string[] {
  return wrapText(safeBlock(text).replace(/\n$/, ''), Math.max(10, width), { breakAtSpaces: words }).split('\n');
}

/** Whether `sourceLines` can answer at once (no slices to wait for). */
export const isSmallSource = (text: string): boolean => text.length <= SLICE_CHARS * 1.5;

/** The lines of a small source, synchronously; `words` wraps at spaces (fields), else lines are cut (raw). */
export function sourceLines(text: string, width: number, words = false): string[] {
  return foldSlice(text, width, words);
}

/** The lines of any source, yielding between slices; rejects with the signal's reason when aborted. */
export async function sourceLinesAsync(
  text: string,
  width: number,
  words = false,
  signal?: AbortSignal,
): Promise<string[]> {
  const lines: string[] = [];
  for (let pos = 0; pos < text.length; ) {
    if (pos > 0) await yieldToEventLoop();
    signal?.throwIfAborted();
    const end = sliceEnd(text, pos);
    for (const line of foldSlice(text.slice(pos, end), width, words)) lines.push(line);
    pos = end;
  }
  return lines;
}
