/**
 * Bounds on a provider's listing as a whole, shared by every provider: however many pages it takes and
 * whatever each page holds, one listing keeps at most `maxItems` messages, reads at most `maxPages`
 * pages, and stops asking for pages once the answers read reach `maxBytes` (each answer is capped on its
 * own by the HTTP client). An entry the listing cannot use (not a record, no valid id) is dropped and
 * counted, never the whole listing. What was left out travels with the list (`MessageList.cut`), so the
 * app and the scripting commands can say so; `listingNote` is the sentence they say.
 */
import type { MessageSummary } from '../../model/mail-types';
import { isApiError } from '../api-error';

export interface ListingLimits {
  /** Messages one listing keeps, over all its pages. */
  maxItems: number;
  /** Answer bytes read before no further page is asked for. */
  maxBytes: number;
  /** Pages one listing reads (a runaway "next page" must end). */
  maxPages: number;
}

/**
 * 10,000 messages is what the inbox is built to scroll (a key costs the same as with 10); 64 MiB the
 * size of one answer; providers set their own page bound from their page size.
 */
export const LISTING_LIMITS: Readonly<ListingLimits> = Object.freeze({
  maxItems: 10_000,
  maxBytes: 64 * 1024 * 1024,
  maxPages: 100,
});

/** A domain list: a picker, not an inbox; 1,000 is far past any service's and any screen's. */
export const DOMAIN_LISTING: Readonly<Partial<ListingLimits>> = Object.freeze({ maxItems: 1_000 });

/** What a listing left out; absent from a list that is whole. */
export interface ListingCut {
  /** Entries dropped because they could not be read (not a record, no valid id). */
  unreadable: number;
  /** The bound the listing stopped at while the service had more to list, if it stopped. */
  stoppedAt?: { bound: 'items' | 'bytes' | 'pages'; limit: number };
}

/** A provider's listing: the messages, and (only when something was left out) what was. */
export type MessageList = MessageSummary[] & { readonly cut?: ListingCut };

/** The list with its cut attached (not enumerable: it is no message, and equality of lists ignores it). */
export function withCut(messages: MessageSummary[], cut: ListingCut | undefined): MessageList {
  if (cut) Object.defineProperty(messages, 'cut', { value: cut, enumerable: false });
  return messages;
}

/** What a listing of `count` messages left out, in a person's words; null when it left out nothing. */
export function listingNote(count: number, cut: ListingCut | undefined): string | null {
  if (!cut) return null;
  const parts: string[] = [];
  const n = (x: number) => x.toLocaleString('en-US');
  if (cut.stoppedAt) {
    const { bound, limit } = cut.stoppedAt;
    const why =
      bound === 'items'
        ? `${n(limit)} messages`
        : bound === 'pages'
          ? `${n(limit)} pages`
          : `${Math.round(limit / 1024 / 1024)} MiB of answers`;
    parts.push(`the service lists more than these ${n(count)} messages (a listing stops at ${why})`);
  }
  if (cut.unreadable > 0) {
    parts.push(
      `${n(cut.unreadable)} listed message${cut.unreadable === 1 ? '' : 's'} left out (no usable id in the service's answer)`,
    );
  }
  return parts.length > 0 ? `${parts.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()) : null;
}

/** One listing being read, page by page. */
export interface ListingReader<T> {
  /**
   * Takes one page: the size of its answer and its entries, each read by `read` (which throws a
   * bad_response ApiError for an entry it cannot use: that entry is dropped and counted). Entries past
   * the item bound are not read at all. Duplicates (mail arriving shifts pages) are kept once.
   */
  page(bytes: number, entries: readonly unknown[], read: (entry: unknown) => T): void;
  /** Whether the next page may be read, now that the service has one; false (and noted) at a bound. */
  more(): boolean;
  /** What was read, in the order the pages gave it, and what was left out. */
  finish(): { items: T[]; cut: ListingCut | undefined };
}

/**
 * Starts a listing under `limits` (a provider's own, over LISTING_LIMITS); `key` says which entries are
 * the same one (a message's id, a domain's name).
 */
export function startListing<T>(key: (item: T) => string, limits: Partial<ListingLimits> = {}): ListingReader<T> {
  const max = { ...LISTING_LIMITS, ...limits };
  const items: T[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let pages = 0;
  let unreadable = 0;
  let stoppedAt: ListingCut['stoppedAt'];

  return {
    page(size, entries, read) {
      pages += 1;
      bytes += size;
      for (const entry of entries) {
        if (items.length >= max.maxItems) {
          stoppedAt = { bound: 'items', limit: max.maxItems };
          break;
        }
        let item: T;
        try {
          item = read(entry);
        } catch (error) {
          if (!(isApiError(error) && error.kind === 'bad_response')) throw error;
          unreadable += 1;
          continue;
        }
        const k = key(item);
        if (!seen.has(k)) {
          seen.add(k);
          items.push(item);
        }
      }
    },
    more() {
      if (stoppedAt) return false;
      if (items.length >= max.maxItems) stoppedAt = { bound: 'items', limit: max.maxItems };
      else if (bytes >= max.maxBytes) stoppedAt = { bound: 'bytes', limit: max.maxBytes };
      else if (pages >= max.maxPages) stoppedAt = { bound: 'pages', limit: max.maxPages };
      return !stoppedAt;
    },
    finish() {
      return {
        items,
        cut: unreadable > 0 || stoppedAt ? { unreadable, ...(stoppedAt ? { stoppedAt } : {}) } : undefined,
      };
    },
  };
}

/** A listing of messages (keyed by id). */
export const startMessageListing = (limits?: Partial<ListingLimits>): ListingReader<MessageSummary> =>
  startListing((m) => m.id, limits);
