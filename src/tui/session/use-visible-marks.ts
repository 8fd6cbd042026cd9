/**
 * Which bodies are fetched in the background, so the inbox can show their marks: once the list has rested
 * a moment, the rows on screen that have no mark yet (a body neither cached nor read before), then the
 * newest unread few. A scroll, a filter or a new listing replaces the queue at once with the newest
 * unread (the rows scrolled away are not fetched), and the rows then on screen join it when the list
 * rests again. The cache fetches one body at a time and never asks for one twice.
 */
import { useEffect } from 'react';
import type { MessageSummary } from '../../model/mail-types';
import type { InboxState } from '../inbox/inbox-state';
import type { MessageCache } from '../viewer/use-message-cache';
import type { AddressMarks } from './mark-book';

// Bodies fetched ahead of time whatever is on screen, so new mail's codes show: the newest unread few.
const NEWEST_UNREAD = 5;
// How long the list must be still before the rows on screen are fetched: a held j key passes rows by.
export const REST_MS = 250;
// At most this many rows of one screen (a very tall terminal), each one request.
const MAX_ROWS = 80;

/** True when nothing was read of this message yet (no body cached or asked for, no mark kept). */
const unmarked = (cache: MessageCache, kept: AddressMarks, m: MessageSummary): boolean =>
  cache.get(m.id) === undefined && kept.get(m.id) === undefined;

/** Queues the background fetches of the list's marks. */
export function useVisibleMarks(state: InboxState, cache: MessageCache, kept: AddressMarks): void {
  const { all, unread, visible, offset, rows } = state;
  const { prefetch } = cache;
  // biome-ignore lint/correctness/useExhaustiveDependencies: cache.get and kept are read when the timer fires; the list's window and content are the triggers
  useEffect(() => {
    const newest = all
      .filter((m) => unread.has(m.id))
      .slice(0, NEWEST_UNREAD)
      .filter((m) => unmarked(cache, kept, m))
      .map((m) => m.id);
    prefetch(newest);
    const timer = setTimeout(() => {
      const onScreen = visible.slice(offset, offset + Math.min(rows, MAX_ROWS)).filter((m) => unmarked(cache, kept, m));
      prefetch([...new Set([...onScreen.map((m) => m.id), ...newest])]);
    }, REST_MS);
    return () => clearTimeout(timer);
  }, [all, unread, visible, offset, rows, prefetch]);
}
