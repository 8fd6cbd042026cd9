/**
 * Who a fetched message was sent to, from the headers a provider keeps: Delivered-To and X-Original-To
 * (the address the mail system delivered to: the only trace of a Bcc), To and Cc. Every address in them
 * is a candidate; which of them are a live session's aliases is the mail service's question.
 *
 * Anyone who can mail the account writes these headers, so the scan is bounded and linear: the header
 * block is cut to ROUTING_HEAD_MAX_BYTES (at a line end) before anything looks at it, and addresses are
 * found from each `@` outwards, each character looked at a bounded number of times. (A regular
 * expression with matchAll cost the square of the header's length: a 300,000-char Cc without an `@`
 * stalled the whole process for most of a minute.)
 */

/** The headers read from a fetched message to route it (fetched alone, so no body is downloaded first). */
export const ROUTING_HEADERS = ['delivered-to', 'x-original-to', 'to', 'cc'] as const;
/** Fetched with them: the sender, for the log only. */
export const FETCHED_HEADERS = [...ROUTING_HEADERS, 'from'] as const;

/**
 * Most bytes of the fetched header block that are looked at: some 2,000 recipients. The receiving
 * system puts Delivered-To and X-Original-To at the top, so only a sender's own To and Cc can push an
 * address past it (hiding their own message, nobody else's).
 */
export const ROUTING_HEAD_MAX_BYTES = 64 * 1024;
/** An address longer than this (RFC 5321's path limit) is nobody's. */
const ADDRESS_MAX = 254;

type RoutingHeader = (typeof ROUTING_HEADERS)[number];

/**
 * The first ROUTING_HEAD_MAX_BYTES of a header block, cut after its last whole line, as a string of its
 * own (latin1: one char per byte). A copy: keeping it never keeps the fetched buffer alive.
 */
export function routingHead(headerBlock: Buffer | string | undefined): string {
  if (!headerBlock) return '';
  const text =
    typeof headerBlock === 'string'
      ? headerBlock.slice(0, ROUTING_HEAD_MAX_BYTES + 1)
      : headerBlock.toString('latin1', 0, Math.min(headerBlock.length, ROUTING_HEAD_MAX_BYTES + 1));
  if (text.length <= ROUTING_HEAD_MAX_BYTES) return text;
  // A line cut in two could leave the front half of an address, which reads as another address.
  return text.slice(0, text.lastIndexOf('\n', ROUTING_HEAD_MAX_BYTES - 1) + 1);
}

// What a bare address is made of: "Name" <a+b@x.test>, a+b@x.test (comment), group: a@x;
// Quoted local parts ("a b"@x) cannot be an alias and are not looked for.
const LOCAL = new Uint8Array(128);
const DOMAIN = new Uint8Array(128);
for (const c of "!#$%&'*+/=?^_`{|}~.-") LOCAL[c.charCodeAt(0)] = 1;
for (const c of '.-') DOMAIN[c.charCodeAt(0)] = 1;
for (let c = 0; c < 128; c++) {
  const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  if (alnum) LOCAL[c] = DOMAIN[c] = 2;
}
const isLocal = (c: number) => c < 128 && LOCAL[c] !== 0;
const isDomain = (c: number) => c < 128 && DOMAIN[c] !== 0;
const isAlnum = (c: number) => c < 128 && DOMAIN[c] === 2;

/**
 * Every `local@domain` in `value`, left to right, as a regular expression scanning left to right would
 * find them: a local part of one or more of its characters that does not reach back into the previous
 * address, a domain that starts and ends with a letter or digit. Linear in `value`.
 */
function addressesIn(value: string, into: string[]): void {
  let from = 0; // where the previous address ended: the next local part starts no earlier
  for (let at = value.indexOf('@'); at >= 0; at = value.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && isLocal(value.charCodeAt(start - 1))) start--;
    if (start === at || !isAlnum(value.charCodeAt(at + 1))) continue;
    let end = at + 1;
    while (end < value.length && isDomain(value.charCodeAt(end))) end++;
    while (!isAlnum(value.charCodeAt(end - 1))) end--;
    if (end - start <= ADDRESS_MAX) into.push(value.slice(start, end).toLowerCase());
    from = end;
    at = end - 1;
  }
}

/** The name of the header field a line starts, lower-cased, if it is one of `names`. */
function fieldName<T extends string>(line: string, names: readonly T[]): T | undefined {
  const colon = line.indexOf(':');
  // Header names are short; a long run before a colon is not one of ours, whatever it is.
  if (colon <= 0 || colon > 32) return undefined;
  const name = line.slice(0, colon).trim().toLowerCase();
  return (names as readonly string[]).includes(name) ? (name as T) : undefined;
}

/** The values of the fields named `names` in `head` (each unfolded), by name, in order of appearance. */
function fieldValues<T extends string>(head: string, names: readonly T[]): Map<T, string[]> {
  const fields = new Map<T, string[][]>();
  let current: string[] | undefined;
  for (let start = 0; start < head.length; ) {
    let end = head.indexOf('\n', start);
    if (end < 0) end = head.length;
    const line = head.slice(start, head.charCodeAt(end - 1) === 0x0d ? end - 1 : end);
    start = end + 1;
    const first = line.charCodeAt(0);
    if (first === 0x20 || first === 0x09) {
      // A folded continuation line belongs to the field above it.
      current?.push(line);
      continue;
    }
    const name = fieldName(line, names);
    current = undefined;
    if (name === undefined) continue;
    current = [line.slice(line.indexOf(':') + 1)];
    // Pushed, not copied: a block of thousands of short Cc lines would copy the list at each one.
    const list = fields.get(name);
    if (list) list.push(current);
    else fields.set(name, [current]);
  }
  return new Map([...fields].map(([name, list]) => [name, list.map((lines) => lines.join(' '))]));
}

/**
 * The addresses in the routing headers of `headerBlock` (header lines as the server sent them: folded
 * lines, any order; only its first ROUTING_HEAD_MAX_BYTES are looked at), lower-cased, each once:
 * those of Delivered-To first, then X-Original-To, To and Cc (so that a cap on how many are looked up
 * keeps the ones the mail system itself wrote).
 */
export function recipientsOf(headerBlock: Buffer | string | undefined): string[] {
  const fields = fieldValues<RoutingHeader>(routingHead(headerBlock), ROUTING_HEADERS);
  const found: string[] = [];
  for (const name of ROUTING_HEADERS) for (const value of fields.get(name) ?? []) addressesIn(value, found);
  return [...new Set(found)];
}

/** The first address of the From field of `headerBlock` (for the log), or undefined. */
export function senderOf(headerBlock: Buffer | string | undefined): string | undefined {
  const found: string[] = [];
  for (const value of fieldValues(routingHead(headerBlock), ['from'] as const).get('from') ?? []) {
    addressesIn(value, found);
    if (found.length > 0) break;
  }
  return found[0];
}
