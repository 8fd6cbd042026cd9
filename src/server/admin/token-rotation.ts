/**
 * What a reload did to the admin tokens, by name, for the log (an operator rotating a token wants to see
 * that the new one is in effect and the old one is not). Names only: a token never reaches the log.
 */
import type { Logger } from '../observe/log';
import type { NamedToken } from './admin-api';

export interface TokenChange {
  added: string[];
  removed: string[];
  rotated: string[];
  kept: string[];
}

/** The names added, removed, rotated (a new token under the same name) and kept as they were. */
export function tokenChange(before: readonly NamedToken[], after: readonly NamedToken[]): TokenChange {
  const old = new Map(before.map((t) => [t.name, t.token]));
  const now = new Set(after.map((t) => t.name));
  const change: TokenChange = { added: [], removed: [], rotated: [], kept: [] };
  for (const { name, token } of after) {
    const was = old.get(name);
    if (was === undefined) change.added.push(name);
    else (was === token ? change.kept : change.rotated).push(name);
  }
  change.removed = before.map((t) => t.name).filter((name) => !now.has(name));
  return change;
}

/** One line (event admin.tokens) saying what a reload did to the tokens; none when there are none. */
export function logTokenChange(log: Logger, before: readonly NamedToken[], after: readonly NamedToken[]): void {
  if (before.length === 0 && after.length === 0) return;
  const c = tokenChange(before, after);
  const parts = [
    c.rotated.length > 0 ? `rotated ${c.rotated.join(', ')}` : '',
    c.added.length > 0 ? `added ${c.added.join(', ')}` : '',
    c.removed.length > 0 ? `removed ${c.removed.join(', ')}` : '',
    c.kept.length > 0 ? `unchanged ${c.kept.join(', ')}` : '',
  ].filter(Boolean);
  const fields = {
    rotated: c.rotated.join(',') || undefined,
    added: c.added.join(',') || undefined,
    removed: c.removed.join(',') || undefined,
  };
  log.event({
    level: 'info',
    event: 'admin.tokens',
    text: `SIGHUP: admin tokens read again: ${parts.join('; ')}`,
    jsonFields: fields,
  });
}
