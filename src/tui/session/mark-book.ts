/**
 * The marks (code, link) read from fetched bodies, kept by address for as long as the app runs: a row's
 * `[code …]` stays when its body leaves the bounded body cache, and when the user goes to another
 * address (`n`, `s`) and comes back (a new session view, a new body cache). One book per App, so each
 * app a process runs (the SSH front door runs one per connection) keeps its own. Bounded: the addresses
 * used last, and the marks read last of each.
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
    };
  }
}
