/**
 * Who a fetched message was sent to, from the headers a provider keeps: Delivered-To and X-Original-To
 * (the address the mail system delivered to: the only trace of a Bcc), To and Cc. Every address in them
 * is a candidate; which of them are a live session's aliases is the mail service's question.
 */

/** The headers read from a fetched message to route it (fetched alone, so no body is downloaded first). */
export const ROUTING_HEADERS = ['delivered-to', 'x-original-to', 'to', 'cc'] as const;

// A bare address inside any header syntax: "Name" <a+b@x.test>, a+b@x.test (comment), group: a@x;
// Quoted local parts ("a b"@x) cannot be an alias and are not looked for.
const ADDRESS = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?/g;

/**
 * The addresses in the routing headers of `headerBlock` (header lines as the server sent them: folded
 * lines, any order), lower-cased, each once, in order of appearance.
 */
export function recipientsOf(headerBlock: Buffer | string | undefined): string[] {
  if (!headerBlock) return [];
  const text = (typeof headerBlock === 'string' ? headerBlock : headerBlock.toString('latin1')).replace(/\r?\n[ \t]+/g, ' ');
  const found = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!(ROUTING_HEADERS as readonly string[]).includes(name)) continue;
    for (const match of line.slice(colon + 1).matchAll(ADDRESS)) found.add(match[0].toLowerCase().replace(/\.+$/, ''));
  }
  return [...found];
}
