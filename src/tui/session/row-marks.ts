/**
 * What a row of the inbox shows about a message beyond its listing: the badge (its code or link, from
 * the fetched body, or a code its subject gives away) and whether it has attachments (the fetched body
 * knows; else what the listing said). O(1) per row: the list draws only its visible rows.
 */
import type { MessageSummary } from '../../model/mail-types';
import { loadedReader } from '../viewer/lazy-reader';
import { badgeOf } from '../viewer/mark';
import type { MessageCache } from '../viewer/use-message-cache';
import type { AddressMarks } from './mark-book';

export interface RowMarks {
  badge: (m: MessageSummary) => string;
  attached: (m: MessageSummary) => boolean;
}

// The badge a subject gives away, by listed message (the list keeps a message's object while it is
// listed unchanged): the code detector runs once per message, not once per row per frame.
const subjectBadges = new WeakMap<MessageSummary, string>();

/** The badge of a message whose body is not fetched: a code in its subject, '' until the reader is loaded. */
function subjectBadge(m: MessageSummary): string {
  let badge = subjectBadges.get(m);
  if (badge === undefined) {
    const reader = loadedReader();
    if (!reader) return '';
    const code = reader.codeInSubject(m.subject);
    badge = code ? `code ${code}` : '';
    subjectBadges.set(m, badge);
  }
  return badge;
}

/**
 * The row marks from the session's body cache, and the address's marks kept past it (a body that left
 * the cache, or was read before the user went to another address and came back).
 */
export function rowMarks(cache: MessageCache, kept: AddressMarks): RowMarks {
  return {
    badge: (m) => {
      const entry = cache.get(m.id);
      const mark = (entry?.status === 'ready' ? entry.mark : undefined) ?? kept.get(m.id);
      if (mark) return badgeOf(mark);
      // Not read yet (the rows on screen are, once it rests): a code in the subject needs no body.
      return subjectBadge(m);
    },
    attached: (m) => {
      const entry = cache.get(m.id);
      return entry?.status === 'ready' ? entry.message.attachments.length > 0 : m.hasAttachments === true;
    },
  };
}
