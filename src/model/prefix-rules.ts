/**
 * The custom-name rules (docs/server/http-api.md, Addresses), in one place for both sides: the reference
 * service enforces them, and the picker checks them as the user types, so that a name the service will
 * refuse never shows a ✓ first. Another service may refuse more; it has the last word when asked.
 */

export const PREFIX_MAX = 64;

/** Role and system names (RFC 2142 and common practice): nobody may hold them as a temporary address. */
export const RESERVED_PREFIXES: ReadonlySet<string> = new Set([
  'abuse',
  'admin',
  'administrator',
  'billing',
  'daemon',
  'ftp',
  'help',
  'hostmaster',
  'info',
  'mail',
  'mailer-daemon',
  'mailerdaemon',
  'marketing',
  'news',
  'no-reply',
  'nobody',
  'noc',
  'noreply',
  'null',
  'operator',
  'postmaster',
  'root',
  'sales',
  'security',
  'ssl-admin',
  'support',
  'sysadmin',
  'system',
  'usenet',
  'uucp',
  'webmaster',
  'www',
]);

/** Which rule a prefix breaks; each side words it for its own audience. */
export type PrefixRule = 'length' | 'chars' | 'edge-dot' | 'double-dot' | 'reserved';

/**
 * The form a prefix is checked and kept in: NFKC, so compatibility forms (fullwidth ｒｏｏｔ, the Kelvin
 * sign, the "ﬁ" ligature, superscripts) become the ASCII they stand for, then lower case (again NFKC,
 * since lower-casing can leave a form NFKC would change).
 */
export function canonicalPrefix(input: string): string {
  return input.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** A name without its separators: "mailer_daemon", "mailer.daemon" and "mailer-daemon" are one name. */
function skeleton(prefix: string): string {
  return prefix.replace(/[._-]/g, '');
}

const RESERVED_SKELETONS: ReadonlySet<string> = new Set([...RESERVED_PREFIXES].map(skeleton));

/**
 * The first rule `input` breaks, or null when it follows them all. The rules apply to its canonical form
 * (canonicalPrefix), which is what the service keeps; a reserved name is matched however it is spelt
 * (case, compatibility forms, dots, "-" and "_"), so "post.master" or "ｍａｉｌｅｒ_ｄａｅｍｏｎ" is not a way
 * to hold a role address.
 */
export function brokenPrefixRule(input: string): PrefixRule | null {
  const prefix = canonicalPrefix(input);
  if (prefix.length < 1 || prefix.length > PREFIX_MAX) return 'length';
  if (!/^[a-z0-9._-]+$/.test(prefix)) return 'chars';
  if (prefix.startsWith('.') || prefix.endsWith('.')) return 'edge-dot';
  if (prefix.includes('..')) return 'double-dot';
  if (RESERVED_SKELETONS.has(skeleton(prefix))) return 'reserved';
  return null;
}
