/**
 * Turns a raw RFC 5322 message into the fields the service stores, with mailparser. Strings are kept as
 * parsed (an ESC in a subject stays an ESC): the service stores data, and making it terminal-safe is the
 * client's job. Parsing never throws: a message mailparser cannot handle is kept with best-effort fields.
 */
import { simpleParser, type AddressObject, type EmailAddress, type HeaderLines, type ParsedMail } from 'mailparser';
import { headerDigest, headerEnd } from './mime-fallback';
import { quickSummary } from './quick-summary';

/** What the service keeps from a parsed message (the raw bytes are kept separately, untouched). */
export interface ParsedFields {
  senderName: string;
  senderEmail: string;
  subject: string;
  to: string[];
  cc: string[];
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
  attachments: { filename: string; contentType: string; bytes: Buffer }[];
}

/** Headers kept for the viewer's header pane, in this order, under these names. */
const SELECTED_HEADERS = ['Date', 'Message-ID', 'From', 'To', 'Cc', 'Reply-To', 'Subject'] as const;

const PARSE_TIMEOUT_MS = 30_000;

const PARSER_OPTIONS = {
  // body_text is what the sender wrote, not a conversion of the HTML; body_html is what the sender
  // wrote, not the text turned into HTML and not rewritten with inlined cid: images.
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipImageLinks: true,
  skipTextLinks: true,
  keepCidLinks: true,
};

/** mailparser, given up on after PARSE_TIMEOUT_MS. */
async function parse(raw: Buffer): Promise<ParsedMail> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('parse timed out')), PARSE_TIMEOUT_MS);
      timer.unref();
    });
    return await Promise.race([simpleParser(raw, PARSER_OPTIONS), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Parses `raw`; never rejects. `envelopeFrom` stands in for a missing From. */
export async function parseMessage(raw: Buffer, envelopeFrom = ''): Promise<ParsedFields> {
  try {
    return fieldsOf(await parse(raw), envelopeFrom);
  } catch {
    return fallbackFields(raw, envelopeFrom);
  }
}

/**
 * What a delivery stores of `raw`: for a plain message whose listing fields its header tells with
 * certainty (quick-summary.ts), those alone and `parseOnRead`, the reader parsing it when it is read;
 * for any other, the whole parse. Never rejects.
 */
export async function fieldsToStore(raw: Buffer, envelopeFrom = ''): Promise<ParsedFields & { parseOnRead?: true }> {
  const quick = quickSummary(raw, envelopeFrom);
  if (quick)
    return { ...quick, to: [], cc: [], text: null, html: null, headers: {}, attachments: [], parseOnRead: true };
  return parseMessage(raw, envelopeFrom);
}

function fieldsOf(p: ParsedMail, envelopeFrom: string): ParsedFields {
  const from = flatten(p.from)[0];
  const html = typeof p.html === 'string' ? p.html : null;
  // With skipHtmlToText an HTML-only message yields text "": that is "no text part", not an empty one.
  const text = typeof p.text === 'string' && !(p.text === '' && html !== null) ? p.text : null;
  return {
    senderName: from?.name ?? '',
    senderEmail: from?.address || envelopeFrom,
    subject: typeof p.subject === 'string' ? p.subject : '',
    to: addressList(p.to),
    cc: addressList(p.cc),
    text,
    html,
    headers: selectedHeaders(p),
    attachments: p.attachments.map((a, i) => ({
      filename: a.filename ?? `attachment-${i + 1}`,
      contentType: a.contentType || 'application/octet-stream',
      bytes: Buffer.isBuffer(a.content) ? a.content : Buffer.alloc(0),
    })),
  };
}

/**
 * Best effort for a message the parser gave up on (past ~1 MB of header or ~1,000 parts): sender,
 * recipients, subject and the header pane from the top-level header alone, and as text the body after
 * the first blank line, as UTF-8. No HTML and no attachments: those needed the MIME tree.
 */
async function fallbackFields(raw: Buffer, envelopeFrom: string): Promise<ParsedFields> {
  const end = headerEnd(raw);
  const text = end < raw.length ? raw.toString('utf8', end).replace(/^\r?\n\r?\n/, '') : null;
  let header: ParsedFields;
  try {
    header = fieldsOf(await parse(headerDigest(raw)), envelopeFrom);
  } catch {
    header = {
      senderName: '',
      senderEmail: envelopeFrom,
      subject: '',
      to: [],
      cc: [],
      text: null,
      html: null,
      headers: {},
      attachments: [],
    };
  }
  return { ...header, text, html: null, attachments: [] };
}

function flatten(obj: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const objs = obj === undefined ? [] : Array.isArray(obj) ? obj : [obj];
  const out: EmailAddress[] = [];
  const walk = (list: EmailAddress[]) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else out.push(a);
    }
  };
  for (const o of objs) walk(o.value ?? []);
  return out;
}

function addressList(obj: AddressObject | AddressObject[] | undefined): string[] {
  return flatten(obj)
    .map((a) => a.address || a.name)
    .filter((s) => s !== '');
}

function addressText(obj: AddressObject | AddressObject[] | undefined): string | undefined {
  if (obj === undefined) return undefined;
  return (Array.isArray(obj) ? obj : [obj]).map((o) => o.text).join(', ');
}

/** The value of a header as it was on the wire (unfolded, 8-bit bytes read as UTF-8). */
function rawHeader(lines: HeaderLines, key: string): string | undefined {
  const line = lines.find((l) => l.key === key)?.line;
  if (line === undefined) return undefined;
  // mailparser hands header lines over as binary strings; re-read the bytes as UTF-8.
  const value = Buffer.from(line, 'binary').toString('utf8');
  return value
    .slice(value.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

function selectedHeaders(p: ParsedMail): Record<string, string> {
  const decoded: Record<(typeof SELECTED_HEADERS)[number], string | undefined> = {
    Date: rawHeader(p.headerLines, 'date'),
    'Message-ID': rawHeader(p.headerLines, 'message-id'),
    From: addressText(p.from),
    To: addressText(p.to),
    Cc: addressText(p.cc),
    'Reply-To': addressText(p.replyTo),
    Subject: typeof p.subject === 'string' ? p.subject : undefined,
  };
  const out: Record<string, string> = {};
  for (const name of SELECTED_HEADERS) {
    const v = decoded[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}
