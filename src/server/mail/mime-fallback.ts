/**
 * For a message mailparser gave up on (past ~1 MB of header or ~1,000 MIME parts): the few top-level
 * header fields the service lists and shows, cut out of the raw header block with bounded work, as a
 * small message of their own. mime.ts parses that small message with mailparser again, so encoded-words,
 * charsets and address lists are decoded exactly as on the normal path, through its public API only
 * (its libmime dependency is not ours to import: it is not in our package.json).
 */

/** The fields kept, as mime.ts's header pane and listing need them. */
const WANTED = /(?:^|\n)(from|to|cc|reply-to|subject|date|message-id)[ \t]*:/gi;

/** Most bytes kept of one field (its name and all its folded lines): a subject is one line on screen. */
export const FIELD_CAP = 16 * 1024;

/** Where the top-level header block of `raw` ends (the first empty line), or raw.length if it never does. */
export function headerEnd(raw: Buffer): number {
  const ends = [raw.indexOf('\r\n\r\n'), raw.indexOf('\n\n'), raw.indexOf('\n\r\n')].filter((i) => i >= 0);
  return ends.length === 0 ? raw.length : Math.min(...ends);
}

/** One field from `start` (its name) through its folded continuation lines, at most FIELD_CAP chars. */
function fieldAt(head: string, start: number): string {
  let end = head.indexOf('\n', start);
  // A line starting with a space or tab continues the field (RFC 5322 folding); stop past the cap.
  while (end >= 0 && end - start < FIELD_CAP && (head[end + 1] === ' ' || head[end + 1] === '\t')) {
    end = head.indexOf('\n', end + 1);
  }
  if (end < 0) end = head.length;
  // No trailing CR, LF or blank: an empty line in the small message would end its header early.
  // (Not trimEnd: in latin1, 0xA0, the tail of many UTF-8 letters, counts as a space.)
  end = Math.min(end, start + FIELD_CAP);
  while (end > start && ' \t\r\n'.includes(head[end - 1]!)) end--;
  return head.slice(start, end);
}

/**
 * A small RFC 5322 header (and an empty body) holding the first From, To, Cc, Reply-To, Subject, Date and
 * Message-ID of `raw`, each bounded, bytes as they were. Empty when none of them is there.
 */
export function headerDigest(raw: Buffer): Buffer {
  // latin1 keeps every byte as one char, so 8-bit (UTF-8) header text goes back out unchanged.
  const head = raw.toString('latin1', 0, headerEnd(raw));
  const seen = new Set<string>();
  const fields: string[] = [];
  for (const match of head.matchAll(WANTED)) {
    const name = match[1]!.toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    fields.push(fieldAt(head, match.index + (match[0].startsWith('\n') ? 1 : 0)));
    if (seen.size === 7) break;
  }
  return Buffer.from(`${fields.map((f) => `${f}\r\n`).join('')}\r\n`, 'latin1');
}
