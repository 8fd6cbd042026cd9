/**
 * The custom-name rules of DESIGN.md, in one place for both sides: the reference service enforces
 * them, and the picker checks them as the user types, so that a name the service will refuse never
 * shows a ✓ first. Another service may refuse more; it has the last word when asked.
 */

export const PREFIX_MAX = 64;

/** Role and system names (RFC 2142 and common practice): nobody may hold them as a temporary address. */
export const RESERVED_PREFIXES: ReadonlySet<string> = new Set([
  'abuse', 'admin', 'administrator', 'billing', 'daemon', 'ftp', 'help', 'hostmaster', 'info', 'mail',
  'mailer-daemon', 'mailerdaemon', 'marketing', 'news', 'no-reply', 'nobody', 'noc', 'noreply', 'null',
  'operator', 'postmaster', 'root', 'sales', 'security', 'ssl-admin', 'support', 'sysadmin', 'system',
  'usenet', 'uucp', 'webmaster', 'www',
]);

/** Which rule a prefix breaks; each side words it for its own audience. */
export type PrefixRule = 'length' | 'chars' | 'edge-dot' | 'double-dot' | 'reserved';

/** The first rule the (already lower-cased) `prefix` breaks, or null when it follows them all. */
export function brokenPrefixRule(prefix: string): PrefixRule | null {
  if (prefix.length < 1 || prefix.length > PREFIX_MAX) return 'length';
  if (!/^[a-z0-9._-]+$/.test(prefix)) return 'chars';
  if (prefix.startsWith('.') || prefix.endsWith('.')) return 'edge-dot';
  if (prefix.includes('..')) return 'double-dot';
  if (RESERVED_PREFIXES.has(prefix)) return 'reserved';
  return null;
}
