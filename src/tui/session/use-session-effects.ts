/**
 * What a session does by itself as the inbox changes: new mail says so (and rings the bell), a zone
 * learned from arriving mail is explained, the opened messages are saved as read for this address, a
 * read-state file that fails is said, and the bodies of the rows on screen and of the newest unread are
 * fetched in the background (use-visible-marks.ts).
 */
import { useEffect } from 'react';
import { listingNote } from '../../client/wire/listing';
import { formatZoneError } from '../../platform/time';
import type { InboxHandle } from '../inbox/use-inbox';
import type { ReadMarks } from '../inbox/use-read-marks';
import type { MessageCache } from '../viewer/use-message-cache';
import type { PollStatus } from '../../client/pacing/poller';
import { useStoreValue } from '../widgets/value-store';
import type { AddressMarks } from './mark-book';
import type { StatusHandle } from './session-status';
import { useVisibleMarks } from './use-visible-marks';

// The poll's error while checks are held (the service answered with something that is not its API).
const heldError = (poll: PollStatus): string | null => (poll.phase === 'held' ? poll.error : null);

export interface SessionEffectsInput {
  inbox: InboxHandle;
  cache: MessageCache;
  marks: ReadMarks;
  /** The address's marks kept past the body cache. */
  kept: AddressMarks;
  status: Pick<StatusHandle, 'info' | 'note' | 'fail'>;
  /** Rings the bell on new mail (null: the bell is off). */
  ring: (() => void) | null;
}

/** Runs the session's own effects. */
export function useSessionEffects({ inbox, cache, marks, kept, status, ring }: SessionEffectsInput): void {
  const { arrivals, lastArrived, all, read, loaded, cut } = inbox.state;
  // New mail: a line, and the bell unless it is switched off.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per arrival (arrivals counts them; lastArrived changes with it): a new ring or clock function must not ring or say it again
  useEffect(() => {
    if (arrivals === 0) return;
    status.info(`${lastArrived} new message${lastArrived === 1 ? '' : 's'}`);
    ring?.();
  }, [arrivals]);

  // A listing that left something out (its bounds, unreadable entries): said whole once, when it changes
  // (the list's summary line keeps saying it in a few words).
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per new cut: mail arriving under the same cut (all.length) or a new clock behind info must not say it again
  useEffect(() => {
    const note = listingNote(all.length, cut ?? undefined);
    if (note) status.info(note);
  }, [cut]);

  // The address is not the service's (a web page, not HTTP): checks stop until r. The header says so in
  // a line; the status says it whole, wrapped, with what to check (it stays: nothing is checked meanwhile).
  const held = useStoreValue(inbox.poll, heldError);
  useEffect(() => {
    if (held) status.fail(held);
  }, [held, status.fail]);

  // Mail showed the service's times off by a zone: say so (it stays: it explains the times shown).
  const zoneError = inbox.zoneErrorMs;
  useEffect(() => {
    if (zoneError !== 0)
      status.note(
        `The service's times read ${formatZoneError(zoneError)} off; corrected from arriving mail (see --server-tz)`,
      );
  }, [zoneError, status.note]);

  // Opened messages are remembered for this address (a deleted one's mark goes once the list lacks it).
  // biome-ignore lint/correctness/useExhaustiveDependencies: written when the read set changes; the list is read as it is then (a new listing alone is no reason to write the file), and marks.save is a new function each render
  useEffect(() => {
    if (read !== marks.initial) marks.save(read, loaded ? new Set(all.map((m) => m.id)) : undefined);
  }, [read]);
  useEffect(() => {
    if (marks.error) status.fail(marks.error);
  }, [marks.error, status.fail]);

  // The bodies of the rows on screen and the newest unread, fetched one at a time in the background.
  useVisibleMarks(inbox.state, cache, kept);
}
