/**
 * What a row of the inbox shows about a message beyond its listing: the badge (its code or link, from
 * the fetched body, or a code its subject gives away) and whether it has attachments (the fetched body
 * knows; else what the listing said). O(1) per row: the list draws only its visible rows.
 */
import type { MessageSummary } from '../../model/mail-types';
import { loadedReader } from '../viewer/lazy-reader';
import { badgeOf } from '../viewer/mark';
import type { MessageCache } from '../viewer/use-message-cache';

export interface RowMarks {
  badge: (m: MessageSummary) => string;
  attached: (m: MessageSummary) => boolean;
}

/** The row marks from the session's body cache. */
export function rowMarks(cache: MessageCache): RowMarks {
  return {
    badge: (m) => {
      const entry = cache.get(m.id);
      if (entry?.status === 'ready') return badgeOf(entry.mark);
      // Not fetched (only the newest unread few are): a code in the subject needs no body.
      const code = loadedReader()?.codeInSubject(m.subject);
      return code ? `code ${code}` : '';
    },
    attached: (m) => {
      const entry = cache.get(m.id);
      return entry?.status === 'ready' ? entry.message.attachments.length > 0 : m.hasAttachments === true;
    },
  };
}
