/**
 * Reads the whole `?` help by scrolling it one line at a time (waiting on each frame), so a test can
 * check that every binding is reachable and every description whole, however small the terminal.
 */
import type { Screen } from '../ui';

/** Lines of the help between its title (and the blank line under it) and the "more" line or the end. */
function helpBody(frame: string, title: string): { lines: string[]; more: string | null } {
  const all = frame.split('\n');
  let i = all.findIndex((l) => l.startsWith(title)) + 1;
  if (i === 0) throw new Error(`no help titled ${title}:\n${frame}`);
  while (i < all.length && all[i]!.trim() === '') i++;
  const end = all.findIndex((l, j) => j >= i && /^[↑↓] \d+ (above|more)/.test(l));
  if (end < 0) return { lines: all.slice(i), more: null };
  return { lines: all.slice(i, end), more: all[end]! };
}

/**
 * The help text from top to bottom, whitespace collapsed (wrapped lines joined), read by pressing j
 * until nothing is below. Expects the help open and scrolled to the top.
 */
export async function readWholeHelp(screen: Screen, title: string): Promise<{ text: string; scrolled: number }> {
  let frame = await screen.waitFor(title);
  let { lines, more } = helpBody(frame, title);
  if (more === null) return { text: lines.join(' ').replace(/\s+/g, ' '), scrolled: 0 };
  const seen: string[] = [];
  let n = 0;
  while (more?.includes('↓')) {
    seen.push(lines[0]!);
    await screen.press('j');
    n += 1;
    frame = await screen.waitFor(`↑ ${n} above`);
    ({ lines, more } = helpBody(frame, title));
  }
  seen.push(...lines);
  return { text: seen.join(' ').replace(/\s+/g, ' '), scrolled: n };
}

/** "keys description" as it reads in the collapsed help text. */
export const collapsed = (s: string): string => s.replace(/\s+/g, ' ').trim();
