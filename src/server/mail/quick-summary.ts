/**
 * What a listing needs of a message (sender, subject, no attachments), read from its header alone, for
 * the common plain message whose reading cannot differ from mailparser's: then the message is stored
 * without its MIME parse, and mailparser parses it when it is first read (inbox-reads.ts). Under SMTP
 * load the parse was some 280 µs of the service's main thread a message, about half of it; this read
 * is a few µs. Anything it is not sure of (an encoded word, 8-bit header text, a quoted-pair, an
 * address with a comment, a part that is not text, a MIME structure beyond one multipart/alternative
 * of text parts...) answers undefined, and the message is parsed before its 250 as before.
 *
 * The rules followed are mailparser's (3.x, with mailsplit and libmime): a header field unfolds to one
 * line and is trimmed; a subject without encoded words is its text; a leaf part is an attachment unless
 * it is text/plain or text/html with no disposition or an inline one. test/server/mail/quick-summary
 * checks every answer against mailparser's own over a corpus of header and structure variants.
 */
import { headerEnd } from './mime-fallback';

/** Largest message stored unparsed: a larger one is parsed at once (its parse would weigh on every read). */
export const PARSE_ON_READ_MAX = 128 * 1024;

/** Most parts of the one multipart/alternative read here. */
const MAX_PARTS = 8;

export interface QuickSummary {
  senderName: string;
  senderEmail: string;
  subject: string;
}

/** The fields of one header block by lowercase name, or undefined when it is not plain enough. */
type Fields = Map<string, string>;

/** Printable ASCII and tab: a header line with nothing to decode (and no lone CR). */
const PLAIN_LINE = /^[\t\x20-\x7e]*$/;
// No blank before the colon: mailsplit takes a first line "From ..." for an mbox separator and drops it.
const FIELD_LINE = /^([\x21-\x39\x3b-\x7e]+):(.*)$/;
/** The fields the answer depends on: each may appear once at most. */
const KEPT = new Set(['from', 'subject', 'content-type', 'content-disposition']);

/** Reads the kept fields of a header block's lines, unfolded and trimmed as libmime's decodeHeader does. */
function readFields(lines: readonly string[]): Fields | undefined {
  if (!lines.every((line) => PLAIN_LINE.test(line))) return undefined;
  const fields: Fields = new Map();
  let current: { name: string; value: string } | undefined;
  const flush = () => {
    if (!current || !KEPT.has(current.name)) return true;
    if (fields.has(current.name)) return false;
    fields.set(current.name, current.value.trim());
    return true;
  };
  for (const line of lines) {
    if (line === '') return undefined;
    if (line[0] === ' ' || line[0] === '\t') {
      if (!current) return undefined;
      // libmime unfolds a line break and the blanks after it into one space.
      current.value += ` ${line.replace(/^[ \t]+/, '')}`;
      continue;
    }
    if (!flush()) return undefined;
    const m = FIELD_LINE.exec(line);
    if (!m) return undefined;
    current = { name: m[1]!.toLowerCase(), value: m[2]! };
  }
  return flush() ? fields : undefined;
}

const ADDRESS =
  '([A-Za-z0-9][A-Za-z0-9._+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)';
/** A word of a display name: atext and dots. */
const WORD = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~.]+";
const FROM_FORMS = [
  // "Display Name" <local@domain>: a quoted name with no quoted-pair, no blank at either end, no run of blanks.
  new RegExp(`^"(${WORD}(?: ${WORD})*)" ?<${ADDRESS}>$`),
  // Display Name <local@domain>: a name of plain words.
  new RegExp(`^([A-Za-z0-9]+(?: [A-Za-z0-9]+)*) <${ADDRESS}>$`),
  new RegExp(`^()<${ADDRESS}>$`),
  new RegExp(`^()${ADDRESS}$`),
];

/** The sender of a From value, when it is one plain address. */
function sender(
  value: string | undefined,
  envelopeFrom: string,
): { senderName: string; senderEmail: string } | undefined {
  if (value === undefined) return { senderName: '', senderEmail: envelopeFrom };
  if (value.includes('xn--') || value.includes('=?')) return undefined;
  for (const form of FROM_FORMS) {
    const m = form.exec(value);
    if (m) return { senderName: m[1]!, senderEmail: m[2]! };
  }
  return undefined;
}

/** The media type and the boundary of a Content-Type value (absent: text/plain), when plainly written. */
function contentType(value: string | undefined): { type: string; boundary?: string } | undefined {
  if (value === undefined) return { type: 'text/plain' };
  // Comments, RFC 2231 parameters, encoded words: mailparser's reading of those is not repeated here.
  if (/[()*\\]|=\?/.test(value)) return undefined;
  const [type, ...params] = value.split(';');
  const named = params.filter((p) => /^\s*boundary\s*=/i.test(p));
  if (named.length > 1) return undefined;
  if (named.length === 0) return { type: type!.trim().toLowerCase() };
  const m = /^\s*boundary\s*=\s*(?:"([^"]*)"|([^\s";]*))\s*$/i.exec(named[0]!);
  const boundary = m?.[1] ?? m?.[2];
  // RFC 2046's characters, no blank (mailsplit trims a quoted boundary's trailing blanks), 1 to 70.
  if (boundary === undefined || !/^[A-Za-z0-9'+_,\-./:=?]{1,70}$/.test(boundary)) return undefined;
  return { type: type!.trim().toLowerCase(), boundary };
}

/**
 * True when a part with these fields is text mailparser shows rather than an attachment. Not with a
 * boundary (mailsplit splits any part that names one), nor with a disposition other than a bare inline
 * (a filename there makes mailsplit guess the type of a part that names none).
 */
function isTextLeaf(fields: Fields): boolean {
  const type = contentType(fields.get('content-type'));
  const disposition = fields.get('content-disposition');
  const inline = disposition === undefined || /^inline$/i.test(disposition);
  return (type?.type === 'text/plain' || type?.type === 'text/html') && type.boundary === undefined && inline;
}

/** True when `body` is a multipart of at most MAX_PARTS text leaves, closed by its final delimiter. */
function textAlternatives(body: string, boundary: string): boolean {
  // mailsplit also takes "\r--boundary" for a delimiter: no lone CR here at all.
  if (/\r(?!\n)/.test(body)) return false;
  const open = `--${boundary}`;
  const parts: string[][] = [];
  let part: string[] | undefined;
  for (const line of body.split(/\r?\n/)) {
    if (line.startsWith(open)) {
      const rest = line.slice(open.length);
      const closing = rest.startsWith('--');
      // mailsplit: the delimiter, "--" when it closes, then blanks only (up to ~1,000 of them: here 64).
      if (!/^[ \t]{0,64}$/.test(closing ? rest.slice(2) : rest)) return false;
      if (part) parts.push(part);
      if (closing) return parts.length > 0 && parts.every(textPart);
      if (parts.length >= MAX_PARTS) return false;
      part = [];
      continue;
    }
    part?.push(line);
  }
  return false;
}

function textPart(lines: string[]): boolean {
  const blank = lines.indexOf('');
  // A part with no header at all is text/plain; one whose header never ends is not read here.
  if (blank < 0) return false;
  if (blank === 0) return true;
  const fields = readFields(lines.slice(0, blank));
  return fields !== undefined && isTextLeaf(fields);
}

/** The listing's fields of `raw`, or undefined when only a MIME parse can tell them. */
export function quickSummary(raw: Buffer, envelopeFrom = ''): QuickSummary | undefined {
  if (raw.length > PARSE_ON_READ_MAX) return undefined;
  const end = headerEnd(raw);
  if (end >= raw.length) return undefined;
  const fields = readFields(raw.toString('latin1', 0, end).split(/\r?\n/));
  if (!fields) return undefined;
  const subject = fields.get('subject') ?? '';
  if (subject.includes('=?')) return undefined;
  const from = sender(fields.get('from'), envelopeFrom);
  if (!from) return undefined;
  const type = contentType(fields.get('content-type'));
  if (!type) return undefined;
  if (type.type === 'multipart/alternative') {
    if (type.boundary === undefined || fields.has('content-disposition')) return undefined;
    if (!textAlternatives(raw.toString('latin1', end), type.boundary)) return undefined;
  } else if (!isTextLeaf(fields)) {
    return undefined;
  }
  return { ...from, subject };
}
