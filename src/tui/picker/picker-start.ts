/**
 * The choice the picker highlights before any move (issue 26). Opened over an address (`n`), a new one
 * was asked for: the first new-address choice. At start, the saved address used last (created, resumed
 * or switched to: SavedSession.usedAt), which is not always the newest created. Undefined: the top.
 */
import type { PickerItem } from './picker-items';

/** The key of the choice to highlight first, among the saved ones (`resumable`) and the new ones (`offered`). */
export function startKey(
  resumable: readonly PickerItem[],
  offered: readonly PickerItem[],
  openedOver: boolean,
): string | undefined {
  if (openedOver) return offered[0]?.key;
  let best: { key: string; at: number } | undefined;
  for (const item of resumable) {
    if (item.value.kind !== 'saved') continue;
    const { usedAt, createdAt } = item.value.session;
    const at = (usedAt ?? createdAt).getTime();
    // Ties go to the one listed first (the newest created).
    if (!best || at > best.at) best = { key: item.key, at };
  }
  return best?.key;
}
