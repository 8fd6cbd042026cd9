/**
 * The code that reads message bodies: HTML to text (html-to-text and its parser and entity tables) and
 * the code and link detectors. Loaded on first use through lazy-reader.ts, never at start: the first
 * frame needs none of it, and parsing it was a good part of the start-up time.
 */
import { detectCode, detectLink } from '../../content/codes';
import { renderBody, SLICE_BYTES } from '../../content/html-text';
import type { Message } from '../../model/mail-types';
import type { Mark } from './mark';

export { renderBody, renderBodyAsync } from '../../content/html-text';

// Wide enough that the text is not wrapped (the detectors undo wrapping anyway, this saves them work).
const MARK_WIDTH = 1000;
const MARK_BYTES = SLICE_BYTES;

/** The code and link of a message; nulls when nothing looks like one (or the body cannot be read). */
export function markOf(message: Message): Mark {
  try {
    const body = renderBody(message, MARK_WIDTH, { maxBytes: MARK_BYTES });
    const code = detectCode({ subject: message.subject, text: body.text });
    const found = detectLink({ subject: message.subject, text: body.text, links: body.links });
    const n = found ? body.links.find((l) => l.url === found.url)?.n : undefined;
    return { code: code?.code ?? null, link: found && n !== undefined ? { n, url: found.url } : null };
  } catch {
    // A body the converter chokes on still opens in the viewer (which says so); it just has no mark.
    return { code: null, link: null };
  }
}

/** A code the subject alone gives away ("Your code is 482913"): the inbox badge before the body is fetched. */
export function codeInSubject(subject: string): string | null {
  return detectCode({ subject, text: '' })?.code ?? null;
}
