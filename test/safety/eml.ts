/**
 * Builds raw RFC 5322 messages that carry a hostile payload in every field a user sees, through one
 * decoding path at a time: raw 8-bit headers and bodies, MIME encoded-words (B and Q), RFC 2231
 * parameters, quoted-printable and base64 parts, HTML entities (decimal, hex, named). The JSON `\u`
 * path is not a message: spec-service.ts serves it. Fields a path cannot carry get plain values.
 */
import { FIELDS, headerSafe, hostileValue, type Field, type Payload } from './payloads';

export type MimePath = 'raw8' | 'ewB' | 'ewQ' | 'rfc2231' | 'qp' | 'b64' | 'entDec' | 'entHex' | 'entNamed';
export type DecodePath = MimePath | 'json';

export const MIME_PATHS: readonly MimePath[] = [
  'raw8',
  'ewB',
  'ewQ',
  'rfc2231',
  'qp',
  'b64',
  'entDec',
  'entHex',
  'entNamed',
];

const HEADER_FIELDS: readonly Field[] = ['subject', 'senderName', 'senderEmail', 'attachmentName'];
const HTML_FIELDS: readonly Field[] = ['htmlBody', 'linkText', 'linkUrl'];

/** The fields each path can carry (the sender address only as a raw quoted local part, or in JSON). */
export const PATH_FIELDS: Record<DecodePath, readonly Field[]> = {
  raw8: FIELDS,
  ewB: ['subject', 'senderName', 'attachmentName'],
  ewQ: ['subject', 'senderName', 'attachmentName'],
  rfc2231: ['attachmentName'],
  qp: ['textBody', ...HTML_FIELDS],
  b64: ['textBody', ...HTML_FIELDS],
  entDec: HTML_FIELDS,
  entHex: HTML_FIELDS,
  entNamed: HTML_FIELDS,
  json: FIELDS,
};

/** The fields `payload` really travels in on `path`: a raw header cannot hold CR, LF or NUL. */
export function fieldsFor(path: DecodePath, payload: Payload): Field[] {
  return PATH_FIELDS[path].filter((f) => !(path === 'raw8' && HEADER_FIELDS.includes(f) && !headerSafe(payload)));
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const hex = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');

/** Splits `s` into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
function chunks(s: string, maxBytes: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of s) {
    if (cur && utf8(cur + ch).length > maxBytes) {
      out.push(cur);
      cur = '';
    }
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/** RFC 2047 encoded-words, folded; adjacent words join without the folding white space. */
export function encodedWords(s: string, kind: 'B' | 'Q'): string {
  const words = chunks(s, kind === 'B' ? 45 : 20).map((c) => {
    const bytes = utf8(c);
    const text =
      kind === 'B'
        ? bytes.toString('base64')
        : [...bytes]
            .map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `=${hex(b)}`))
            .join('');
    return `=?UTF-8?${kind}?${text}?=`;
  });
  return words.join('\r\n ');
}

/** A quoted-string: backslash and double quote escaped, everything else as it is. */
export const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** Folds a long raw header value at its spaces (a value without spaces stays one long line). */
function fold(value: string): string {
  return value
    .replace(/(.{1,900})( |$)/g, (_match, part: string, sp: string) => (sp ? `${part}\r\n ` : part))
    .replace(/\r\n $/, '');
}

/** Quoted-printable (RFC 2045): every byte but printable ASCII as =XX, soft line breaks at 76. */
export function quotedPrintable(bytes: Buffer): string {
  const lines: string[] = [];
  let line = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    const piece = b >= 0x21 && b <= 0x7e && c !== '=' ? c : b === 0x20 ? ' ' : `=${hex(b)}`;
    if (line.length + piece.length > 75) {
      lines.push(`${line}=`);
      line = '';
    }
    line += piece;
  }
  // A space at the end of a line would be lost in transport.
  lines.push(line.replace(/ $/, '=20'));
  return lines.join('\r\n');
}

/** Base64 in 76-character lines. */
export const base64Lines = (bytes: Buffer) => bytes.toString('base64').replace(/.{76}/g, '$&\r\n');

/** A body part's Content-Transfer-Encoding on `path` and the text encoded with it. */
export function transferEncoded(text: string, path: MimePath): { cte: string; body: string } {
  if (path === 'qp') return { cte: 'quoted-printable', body: quotedPrintable(utf8(text)) };
  if (path === 'b64') return { cte: 'base64', body: base64Lines(utf8(text)) };
  return { cte: '8bit', body: text };
}

/** RFC 2231 percent-encoding of UTF-8: every byte but ASCII letters and digits as %XX. */
export const percentEncoded = (s: string) =>
  [...utf8(s)]
    .map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${hex(b)}`))
    .join('');

const NAMED: Record<string, string> = {
  '\u200e': '&lrm;',
  '\u200f': '&rlm;',
  '\t': '&Tab;',
  '\n': '&NewLine;',
  '"': '&quot;',
  ';': '&semi;',
  '[': '&lsqb;',
  ']': '&rsqb;',
  '\\': '&bsol;',
  $: '&dollar;',
  '?': '&quest;',
  '(': '&lpar;',
  '#': '&num;',
  '=': '&equals;',
  ',': '&comma;',
  '.': '&period;',
  ':': '&colon;',
  '/': '&sol;',
  _: '&lowbar;',
  '^': '&Hat;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
};

/** Text for HTML on `path`: minimal escaping, or every non-alphanumeric character as an entity. */
export function htmlText(s: string, path: MimePath): string {
  if (path === 'entDec' || path === 'entHex') {
    return [...s]
      .map((c) =>
        /[A-Za-z0-9 ]/.test(c)
          ? c
          : path === 'entDec'
            ? `&#${c.codePointAt(0)};`
            : `&#x${c.codePointAt(0)!.toString(16)};`,
      )
      .join('');
  }
  if (path === 'entNamed') {
    // Named where HTML has a name; controls have none, so they stay raw and the sequence forms on decoding.
    return [...s].map((c) => NAMED[c] ?? c).join('');
  }
  return s.replace(/[&<>"]/g, (c) => NAMED[c]!);
}

export interface BuiltMessage {
  raw: Buffer;
  /** Fields that carry the payload in this message. */
  fields: Field[];
}

/**
 * One message for `payload` on `path`: multipart/mixed of (text/plain + text/html alternatives) and an
 * attachment. `caseId` goes into the Message-ID so the test can find the message again.
 */
export function buildEml(path: MimePath, payload: Payload, to: string, caseId: string): BuiltMessage {
  const fields = fieldsFor(path, payload);
  const has = (f: Field) => fields.includes(f);
  const v = (f: Field) => hostileValue(payload, f);
  const head: string[] = [];

  const name = has('senderName') ? v('senderName') : 'Plain Sender';
  const nameOut =
    path === 'ewB' || path === 'ewQ'
      ? has('senderName')
        ? encodedWords(name, path === 'ewB' ? 'B' : 'Q')
        : name
      : quoted(name);
  const local = has('senderEmail') ? quoted(v('senderEmail')) : 'plain';
  head.push(`From: ${nameOut} <${local}@example.org>`);
  head.push(`To: <${to}>`);
  const subject = has('subject') ? v('subject') : `case ${caseId}`;
  head.push(
    `Subject: ${!has('subject') ? subject : path === 'raw8' ? fold(subject) : encodedWords(subject, path === 'ewB' ? 'B' : 'Q')}`,
  );
  head.push(`Message-ID: <${caseId}@safety.test>`, 'Date: Thu, 01 Jan 2026 10:00:00 +0000', 'MIME-Version: 1.0');
  head.push('Content-Type: multipart/mixed; boundary="=_mixed_q"');

  const cte = transferEncoded('', path).cte;
  const encodeBody = (text: string) => transferEncoded(text, path).body;
  const text = has('textBody') ? `Text part.\n${v('textBody')}\nEnd of text.\n` : 'Plain text part.\n';
  const htmlPath: MimePath = path;
  const para = has('htmlBody') ? htmlText(v('htmlBody'), htmlPath) : 'Plain HTML part.';
  const linkText = has('linkText') ? htmlText(v('linkText'), htmlPath) : 'plain link';
  const href = `https://example.org/${has('linkUrl') ? htmlText(v('linkUrl'), htmlPath) : 'plain'}`;
  const html = `<html><body><p>HTML part.</p><p>${para}</p><p><a href="${href}">${linkText}</a></p></body></html>\n`;

  const file = has('attachmentName') ? v('attachmentName') : 'plain.txt';
  let disposition: string;
  if (!has('attachmentName')) disposition = `attachment; filename="${file}"`;
  else if (path === 'ewB' || path === 'ewQ')
    disposition = `attachment; filename="${encodedWords(file, path === 'ewB' ? 'B' : 'Q')}"`;
  else if (path === 'rfc2231') {
    const pct = percentEncoded(file);
    // RFC 2231 continuations keep each line short however long the name is.
    const parts = pct.match(/.{1,60}(?=%|[A-Za-z0-9]|$)/g) ?? [pct];
    disposition = `attachment;\r\n ${parts.map((part, i) => `filename*${i}*=${i === 0 ? "utf-8''" : ''}${part}`).join(';\r\n ')}`;
  } else disposition = `attachment; filename=${quoted(file)}`;

  const body = [
    '--=_mixed_q',
    'Content-Type: multipart/alternative; boundary="=_alt_q"',
    '',
    '--=_alt_q',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Transfer-Encoding: ${cte}`,
    '',
    encodeBody(text),
    '--=_alt_q',
    'Content-Type: text/html; charset=utf-8',
    `Content-Transfer-Encoding: ${cte}`,
    '',
    encodeBody(html),
    '--=_alt_q--',
    '--=_mixed_q',
    'Content-Type: application/octet-stream',
    `Content-Disposition: ${disposition}`,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('attachment bytes\n').toString('base64'),
    '--=_mixed_q--',
    '',
  ];
  // Raw 8-bit text keeps its own bare CRs and LFs: only the structure's line ends are CRLF.
  const raw = Buffer.concat([utf8(head.join('\r\n')), utf8('\r\n\r\n'), utf8(body.join('\r\n'))]);
  return { raw, fields };
}
