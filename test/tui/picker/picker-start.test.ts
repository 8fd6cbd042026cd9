/**
 * The picker's first highlight as data (issue 26): the start key (picker-start.ts) and the reducer's
 * window starting there, moves going on from it, and the window scrolled to show it.
 */
import { describe, expect, it } from 'vitest';
import type { SavedSession } from '../../../src/state/saved-sessions';
import { pickerItems, savedItems } from '../../../src/tui/picker/picker-items';
import { startKey } from '../../../src/tui/picker/picker-start';
import { initialPickerState, pickerReducer, pickerWindow } from '../../../src/tui/picker/picker-state';

const NOW = Date.parse('2026-05-14T09:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000);
const saved = (email: string, created: number, used?: number): SavedSession => ({
  email,
  token: `t-${email}`,
  expiresAt: at(60),
  provider: 'tempmail',
  baseUrl: 'http://127.0.0.1:8025/',
  createdAt: at(created),
  ...(used === undefined ? {} : { usedAt: at(used) }),
});
// As the store lists them: newest created first.
const resumable = savedItems([saved('c@x.test', -1, -1), saved('b@x.test', -2, -2), saved('a@x.test', -3, -0.5)], NOW);
const offered = pickerItems({ domains: [{ id: 1, domain: 'x.test' }], extmailAccounts: [] });

describe('the first highlight of the picker', () => {
  it('at start: the saved address used last; without usedAt, its creation counts; ties go to the first listed', () => {
    expect(startKey(resumable, offered, false)).toBe(resumable[2]!.key);
    const older = savedItems([saved('c@x.test', -1), saved('b@x.test', -2), saved('a@x.test', -3)], NOW);
    expect(startKey(older, offered, false)).toBe(older[0]!.key);
    const tied = savedItems([saved('c@x.test', -1, -1), saved('b@x.test', -2, -1)], NOW);
    expect(startKey(tied, offered, false)).toBe(tied[0]!.key);
    expect(startKey([], offered, false)).toBeUndefined();
  });

  it('opened over an address (n): the first new-address choice, or none while the domains load', () => {
    expect(startKey(resumable, offered, true)).toBe(offered[0]!.key);
    expect(startKey(resumable, [], true)).toBeUndefined();
  });

  it('the window starts on it and scrolls to show it; a move goes on from it; a list without it starts at the top', () => {
    const keys = [...resumable, ...offered].map((i) => i.key).join('\n');
    const start = startKey(resumable, offered, true)!;
    expect(pickerWindow(initialPickerState, keys, 5, 5, start)).toEqual({ index: 3, top: 0 });
    // Two rows: scrolled to the start choice.
    expect(pickerWindow(initialPickerState, keys, 5, 2, start)).toEqual({ index: 3, top: 2 });
    const moved = pickerReducer(initialPickerState, {
      type: 'move',
      items: keys,
      count: 5,
      rows: 5,
      to: 'down',
      start,
    });
    expect(pickerWindow(moved, keys, 5, 5, start).index).toBe(4);
    expect(pickerWindow(initialPickerState, keys, 5, 5, 'not-there')).toEqual({ index: 0, top: 0 });
  });
});
