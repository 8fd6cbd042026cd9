/**
 * The marks (code, link) read from fetched bodies, kept by address for as long as the app runs: a row's
 * `[code …]` stays when its body leaves the bounded body cache, and when the user goes to another
 * address (`n`, `s`) and comes back (a new session view, a new body cache). One book per App, so each
 * app a process runs (the SSH front door runs one per connection) keeps its own. Bounded: the addresses
 * used last, and the marks read last of each.
 *
 * Pruned to the listing: when a whole listing of the address leaves out messages listed before (the inbox
 * reducer's `dropped`; the first listing of a session view too), the address's marks of messages no
 * longer listed go (`prune`, O(marks kept)), so a long session of mail arriving and going keeps the marks
 * of what is listed, not 5,000. Only that address's marks: the handle of one address cannot reach
 * another's. A provider that lists only its newest N: a message scrolled off its list is gone for the
 * user too, so is its mark (listed again, its body is fetched again). A listing that comes back empty
 * (an expired inbox the service lists as empty) empties this address's marks; switching address is a new
 * session view listing the new address, which leaves the old one's marks as they were (pruned when it is
 * listed again). A listing that stopped at the app's own bound (`cut.stoppedAt`: the service has more)
 * prunes nothing, what it left out is still there; the next whole one does. The viewer open on a message
 * deleted meanwhile loses its mark with the row; the body it shows stays (use-message-cache.ts).
 */
import type { MessageId } from '../../model/mail-types';
import type { Mark } from '../viewer/mark';

export interface MarkBookLimits {
  /** Addresses kept (the ones used last). */
  addresses: number;
  /** Marks kept per address (the ones read last). */
  marks: number;
}

const LIMITS: Readonly<MarkBookLimits> = Object.freeze({ addresses: 16, marks: 5000 });

/** The marks of one address. */
export interface AddressMarks {
  get(id: MessageId): Mark | undefined;
  set(id: MessageId, mark: Mark): void;
  /** Forgets the marks of messages not in `listed` (a whole listing of this address). */
  prune(listed: ReadonlySet<MessageId>): void;
}

export class MarkBook {
  private readonly books = new Map<string, Map<MessageId, Mark>>();

  constructor(private readonly limits: MarkBookLimits = LIMITS) {}

  /** The marks of the address `key` (made the most recently used). */
  of(key: string): AddressMarks {
    let book = this.books.get(key);
    if (book) this.books.delete(key);
    else book = new Map();
    this.books.set(key, book);
    for (const old of this.books.keys()) {
      if (this.books.size <= this.limits.addresses) break;
      this.books.delete(old);
    }
    const marks = book;
    const max = this.limits.marks;
    return {
      get: (id) => marks.get(id),
      set: (id, mark) => {
        marks.delete(id);
        marks.set(id, mark);
        if (marks.size > max) marks.delete(marks.keys().next().value as MessageId);
      },
      prune: (listed) => pruneMarks(marks, listed),
    };
  }
}

/** Deletes the marks whose ids are not in `listed`: O(marks), nothing allocated. */
function pruneMarks(marks: Map<MessageId, Mark>, listed: ReadonlySet<MessageId>): void {
  for (const id of marks.keys()) if (!listed.has(id)) marks.delete(id);
}
