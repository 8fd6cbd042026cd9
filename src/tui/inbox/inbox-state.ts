/**
 * The inbox list as a reducer: the messages (newest first), what is unread and what arrived while the
 * user watched, the filter, the selection (kept by id, so mail arriving on top never moves it) and the
 * scroll window (offset + rows), which the view slices so only visible rows are drawn. A key costs the
 * same with 10 messages or 10,000: the selection's index is kept beside its id, so moving it looks at no
 * other row. A listing keeps the row objects of the messages it already had, so rows drawn before are
 * the same objects and their memoized views are not drawn again. `dropped` counts the whole listings that
 * left out messages listed before: when it changes the session prunes the bodies and marks it keeps to
 * the list (use-session-view.ts), so new mail alone, polls that bring the same ids, and keys prune nothing.
 */
import type { ListingCut } from '../../client/wire/listing';
import type { MessageId, MessageSummary } from '../../model/mail-types';

export interface InboxState {
  /** Every listed message, newest first. */
  all: MessageSummary[];
  /** `all` after the filter: what the list shows. */
  visible: MessageSummary[];
  filter: string;
  selectedId: MessageId | null;
  /** Index of `selectedId` in `visible` (kept with it by selectAt; 0 when none). */
  selectedAt: number;
  /** Index in `visible` of the first drawn row. */
  offset: number;
  /** Rows the list may draw. */
  rows: number;
  /**
   * Ids opened here, now or before (the saved read state of the address, so switching away and back or a
   * restart keeps them); the app saves it. May hold ids no longer listed.
   */
  read: ReadonlySet<MessageId>;
  /**
   * Listed ids neither opened here nor seen according to the service, so its size is the unread count.
   */
  unread: ReadonlySet<MessageId>;
  /** Ids that arrived after the first listing and were not opened yet ("new"). */
  fresh: ReadonlySet<MessageId>;
  /** Ids deleted here: a listing that was already on its way must not bring them back. */
  deleted: ReadonlySet<MessageId>;
  /** A first listing has arrived. */
  loaded: boolean;
  /** Counts listings that brought new mail; the bell and the "new mail" line follow it. */
  arrivals: number;
  /** How many messages the last arrival brought. */
  lastArrived: number;
  /** How far the service's times read off (ms), learned by use-inbox; listed times are corrected. */
  zoneErrorMs: number;
  /** What the last listing left out (its bounds, unreadable entries), null when it was whole. */
  cut: ListingCut | null;
  /**
   * Counts the whole listings that may have left out messages kept before (the first listing too): a
   * message deleted on the service, here, or past a provider's newest N. The session prunes what it keeps
   * of messages (bodies, marks) to `all` when it changes. A listing that stopped at the app's bound while
   * the service had more (`cut.stoppedAt`) is not counted, what it left out is still there; the next
   * whole one is. Unreadable entries (no usable id) cannot be an id we know: they leave a listing whole.
   */
  dropped: number;
}

export type InboxAction =
  | { type: 'listed'; messages: MessageSummary[]; zoneErrorMs?: number; cut?: ListingCut }
  | { type: 'move'; delta: number }
  | { type: 'page'; direction: 1 | -1 }
  | { type: 'first' }
  | { type: 'last' }
  | { type: 'viewport'; rows: number }
  | { type: 'opened'; id: MessageId }
  /** Selects a message by id (the viewer moved to it with J/K); unknown ids change nothing. */
  | { type: 'select'; id: MessageId }
  | { type: 'removed'; id: MessageId }
  | { type: 'filter'; text: string };

/** The state before anything is listed; `read`: the ids opened before (the saved read state). */
export function initialInboxState(rows = 10, read: ReadonlySet<MessageId> = new Set()): InboxState {
  return {
    read,
    all: [],
    visible: [],
    filter: '',
    selectedId: null,
    selectedAt: 0,
    offset: 0,
    rows: Math.max(1, rows),
    unread: new Set(),
    fresh: new Set(),
    deleted: new Set(),
    loaded: false,
    arrivals: 0,
    lastArrived: 0,
    zoneErrorMs: 0,
    cut: null,
    dropped: 0,
  };
}

// Receive times read in the wrong zone, put right.
const shifted = (messages: MessageSummary[], errorMs: number): MessageSummary[] =>
  errorMs === 0
    ? messages
    : messages.map((m) => (m.receivedAt ? { ...m, receivedAt: new Date(m.receivedAt.getTime() - errorMs) } : m));

const byNewest = (a: MessageSummary, b: MessageSummary): number =>
  (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0) || compareIds(b.id, a.id);

/** Ids in order: numerically where both are numbers (tempmail, Guerrilla Mail), else as text (mail.tm's hex). */
export function compareIds(a: MessageId, b: MessageId): number {
  if (/^\d{1,15}$/.test(a) && /^\d{1,15}$/.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Case-insensitive match of the filter against sender name, address and subject. */
export function matchesFilter(m: MessageSummary, filter: string): boolean {
  if (!filter) return true;
  const needle = filter.toLowerCase();
  return (
    m.subject.toLowerCase().includes(needle) ||
    m.senderName.toLowerCase().includes(needle) ||
    m.senderEmail.toLowerCase().includes(needle)
  );
}

/**
 * The same listing as before, field for field: the same ids in the same order, each row showing the
 * same (a service that answered "not modified" gives the very same array). O(messages), no allocation.
 */
export function sameListing(a: readonly MessageSummary[], b: readonly MessageSummary[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id || !sameRow(a[i]!, b[i]!)) return false;
  return true;
}

/** Two listings left out the same (both whole, or the same bound and count). */
export function sameCut(a: ListingCut | null | undefined, b: ListingCut | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return (
    a.unreadable === b.unreadable &&
    a.stoppedAt?.bound === b.stoppedAt?.bound &&
    a.stoppedAt?.limit === b.stoppedAt?.limit
  );
}

/** Index of the selection in `visible` (0 when none or gone): O(1) where the kept index is right. */
export function selectedIndex(state: InboxState): number {
  if (state.selectedId === null) return 0;
  if (state.visible[state.selectedAt]?.id === state.selectedId) return state.selectedAt;
  const i = state.visible.findIndex((m) => m.id === state.selectedId);
  return Math.max(i, 0);
}

/** The selected message, if the list has one. */
export const selectedMessage = (state: InboxState): MessageSummary | undefined => state.visible[selectedIndex(state)];

// Puts the selection at `index` (clamped) and scrolls just enough to keep it in the window.
function selectAt(state: InboxState, index: number): InboxState {
  const count = state.visible.length;
  if (count === 0) return { ...state, selectedId: null, selectedAt: 0, offset: 0 };
  const i = Math.min(count - 1, Math.max(0, index));
  let offset = Math.min(state.offset, Math.max(0, count - state.rows));
  if (i < offset) offset = i;
  if (i >= offset + state.rows) offset = i - state.rows + 1;
  offset = Math.max(0, offset);
  const selectedId = state.visible[i]!.id;
  // Nothing moved (a key at either end of the list): the same state, so nothing is drawn.
  if (selectedId === state.selectedId && i === state.selectedAt && offset === state.offset) return state;
  return { ...state, selectedId, selectedAt: i, offset };
}

// Rebuilds `visible` after the list or the filter changed, keeping the selection where it can.
function revisit(state: InboxState, all: MessageSummary[], filter: string): InboxState {
  const visible = filter ? all.filter((m) => matchesFilter(m, filter)) : all;
  const kept = state.selectedId === null ? -1 : visible.findIndex((m) => m.id === state.selectedId);
  const oldIndex = selectedIndex(state);
  const next = { ...state, all, visible, filter };
  return selectAt(next, kept >= 0 ? kept : oldIndex);
}

// The new listing with the row objects of the messages already listed (and unchanged) kept as they were.
function merged(before: MessageSummary[], incoming: MessageSummary[]): MessageSummary[] {
  if (before.length === 0) return incoming;
  const known = new Map(before.map((m) => [m.id, m]));
  return incoming.map((m) => {
    const old = known.get(m.id);
    return old && sameRow(old, m) ? old : m;
  });
}

// What a row shows of a message: the same, or it must be drawn again.
function sameRow(a: MessageSummary, b: MessageSummary): boolean {
  return (
    a.subject === b.subject &&
    a.senderName === b.senderName &&
    a.senderEmail === b.senderEmail &&
    a.seen === b.seen &&
    a.hasAttachments === b.hasAttachments &&
    (a.receivedAt?.getTime() ?? null) === (b.receivedAt?.getTime() ?? null)
  );
}

/** The reducer; exhaustive over InboxAction. */
export function inboxReducer(state: InboxState, action: InboxAction): InboxState {
  switch (action.type) {
    case 'listed': {
      // One row per id, whatever the service sends (a duplicate would also be a duplicate React key).
      const seen = new Set<MessageId>();
      const zoneErrorMs = action.zoneErrorMs ?? state.zoneErrorMs;
      const cut = sameCut(state.cut, action.cut ?? null) ? state.cut : (action.cut ?? null);
      const incoming = shifted(action.messages, zoneErrorMs)
        .filter((m) => !state.deleted.has(m.id) && !seen.has(m.id) && seen.add(m.id))
        .sort(byNewest);
      // Listings arrive in order (never two in flight) and ids are never reused: once one comes without a
      // deleted id, no later one can bring it back, so the id is dropped and the set stays small.
      const deleted = state.deleted.size === 0 ? state.deleted : pruneDeleted(state.deleted, action.messages);
      // Idle polling brings the same list back every few seconds: keep the state as is, draw nothing.
      if (state.loaded && sameListing(state.all, incoming) && zoneErrorMs === state.zoneErrorMs) {
        const dropped = droppedAfter(state, action.cut, deleted !== state.deleted);
        return deleted === state.deleted && cut === state.cut && dropped === state.dropped
          ? state
          : { ...state, deleted, cut, dropped };
      }
      const known = new Set(state.all.map((m) => m.id));
      const arrived = state.loaded ? incoming.filter((m) => !known.has(m.id)).map((m) => m.id) : [];
      const ids = new Set(incoming.map((m) => m.id));
      // Every listed id is in `known` or `arrived` (ids are unique): fewer known ones than listed before
      // means some went.
      const gone = incoming.length - arrived.length < state.all.length || !state.loaded;
      const dropped = droppedAfter(state, action.cut, gone || deleted !== state.deleted);
      const unread = new Set(incoming.filter((m) => !state.read.has(m.id) && m.seen !== true).map((m) => m.id));
      const fresh = new Set([...state.fresh].filter((id) => ids.has(id)));
      for (const id of arrived) if (unread.has(id)) fresh.add(id);
      const next = revisit(
        { ...state, unread, fresh, deleted, zoneErrorMs, cut, dropped, loaded: true },
        merged(state.all, incoming),
        state.filter,
      );
      return arrived.length > 0 ? { ...next, arrivals: state.arrivals + 1, lastArrived: arrived.length } : next;
    }
    case 'move':
      return selectAt(state, selectedIndex(state) + action.delta);
    case 'page':
      return pageBy(state, action.direction);
    case 'first':
      return selectAt(state, 0);
    case 'last':
      return selectAt(state, state.visible.length - 1);
    case 'viewport': {
      const rows = Math.max(1, action.rows);
      return rows === state.rows ? state : selectAt({ ...state, rows }, selectedIndex(state));
    }
    case 'opened': {
      if (state.read.has(action.id) && !state.unread.has(action.id) && !state.fresh.has(action.id)) return state;
      const read = new Set(state.read).add(action.id);
      const unread = new Set(state.unread);
      const fresh = new Set(state.fresh);
      unread.delete(action.id);
      fresh.delete(action.id);
      return { ...state, read, unread, fresh };
    }
    case 'select': {
      const index = state.visible.findIndex((m) => m.id === action.id);
      return index < 0 || state.selectedId === action.id ? state : selectAt(state, index);
    }
    case 'removed': {
      const index = selectedIndex(state);
      const deleted = new Set(state.deleted).add(action.id);
      const all = state.all.filter((m) => m.id !== action.id);
      const visible = state.visible.filter((m) => m.id !== action.id);
      const unread = new Set(state.unread);
      const fresh = new Set(state.fresh);
      unread.delete(action.id);
      fresh.delete(action.id);
      const next = { ...state, all, visible, deleted, unread, fresh };
      // The selection moves to the message that took the deleted one's place.
      return state.selectedId === action.id ? selectAt(next, index) : selectAt(next, selectedIndex(next));
    }
    case 'filter':
      return revisit(state, state.all, action.text);
  }
}

// The deleted ids a listing still carries (a listing sent before the delete reached the service).
function pruneDeleted(deleted: ReadonlySet<MessageId>, listed: readonly MessageSummary[]): ReadonlySet<MessageId> {
  const kept = new Set(listed.filter((m) => deleted.has(m.id)).map((m) => m.id));
  return kept.size === deleted.size ? deleted : kept;
}

/**
 * `dropped` after a listing that left out ids listed before (`gone`: some of `all`, or an id deleted here
 * that the listing no longer carries): counted when the listing is whole, and whenever a whole one follows
 * one cut at a bound (what that one left out was not pruned). O(1).
 */
function droppedAfter(state: InboxState, cut: ListingCut | undefined, gone: boolean): number {
  if (cut?.stoppedAt) return state.dropped;
  return gone || state.cut?.stoppedAt ? state.dropped + 1 : state.dropped;
}

// A page moves the window and the selection together, like a pager.
function pageBy(state: InboxState, direction: 1 | -1): InboxState {
  const count = state.visible.length;
  if (count === 0) return state;
  const step = Math.max(1, state.rows - 1);
  const index = selectedIndex(state);
  const offset = Math.min(Math.max(0, count - state.rows), Math.max(0, state.offset + direction * step));
  return selectAt({ ...state, offset }, Math.min(count - 1, Math.max(0, index + direction * step)));
}
