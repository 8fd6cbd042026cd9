/**
 * A message's "mark": its likely verification code and confirmation link (src/core/codes.ts), read once
 * when its body arrives, for the inbox badge and the top of the viewer. Only the top of a big message is
 * converted for this (codes and confirmation links come first), so it costs a few ms whatever the size.
 */
import { detectCode, detectLink } from '../../core/codes';
import { renderBody, SLICE_BYTES } from '../../core/html-text';
import type { Message } from '../../core/types';

export interface Mark {
  code: string | null;
  /** The likely link, with its number in the viewer's link list. */
  link: { n: number; url: string } | null;
}

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

/** The inbox badge: "code 482913", "link", or '' when the message has no mark (or is not fetched). */
export function badgeOf(mark: Mark | undefined): string {
  if (!mark) return '';
  if (mark.code) return `code ${mark.code}`;
  return mark.link ? 'link' : '';
}
