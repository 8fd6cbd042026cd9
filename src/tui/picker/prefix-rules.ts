/**
 * The custom-name rules of DESIGN.md, checked as the user types: 1-64 of a-z 0-9 . _ -, no dot at
 * either end, no two dots in a row. The service has the last word (its reserved names may differ, and
 * a taken name is only known when asking), so this is advice, not the gate.
 */

export const PREFIX_MAX = 64;
// The names DESIGN.md spells out; a service may refuse more, and says so when asked.
const RESERVED = new Set(['postmaster', 'abuse', 'admin', 'root', 'hostmaster', 'webmaster', 'mailer-daemon']);

/** Null when `prefix` looks acceptable, else why not (one short line). */
export function prefixProblem(prefix: string): string | null {
  if (prefix.length === 0) return 'type a name';
  if (prefix.length > PREFIX_MAX) return `at most ${PREFIX_MAX} characters`;
  if (!/^[a-z0-9._-]+$/.test(prefix)) return 'only a-z, 0-9, ".", "_" and "-"';
  if (prefix.startsWith('.') || prefix.endsWith('.')) return 'no dot at the start or the end';
  if (prefix.includes('..')) return 'no two dots in a row';
  if (RESERVED.has(prefix)) return `"${prefix}" is reserved`;
  return null;
}

/** What the input keeps of what was typed: lower case, no spaces (addresses are case-insensitive). */
export function normalizePrefix(typed: string): string {
  return typed.toLowerCase().replace(/\s+/g, '');
}
