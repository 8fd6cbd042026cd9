/**
 * Messages for the pseudo-terminal level of the safety matrix: every payload batched into a few mails,
 * so the built app shows each family in every field (subject, sender name, sender address, text body,
 * HTML body, link text and URL, attachment name) through rotating decoding paths. A batch is "T" (text
 * body, sender name, half the attachments), "H" (HTML body and links, half the sender addresses, the
 * other attachments; the viewer shows the HTML part when there is one) and "E" (the other addresses).
 */
import { base64Lines, encodedWords, htmlText, quoted, quotedPrintable, type MimePath } from './eml';
import { expectedMarkers, headerSafe, hostileValue, type Field, type Payload } from './payloads';

export interface ExpectedMarker {
  field: Field;
  payload: Payload;
  words: string[];
}

export interface PtyMessage {
  /** First word of the subject, e.g. "B3T": how the test finds the message on screen. */
  tag: string;
  raw: Buffer;
  expect: ExpectedMarker[];
}

const SINGLE_LINE: readonly Field[] = ['subject', 'senderName', 'senderEmail', 'attachmentName'];

function expected(payload: Payload, field: Field): ExpectedMarker {
  const [a, z] = expectedMarkers(payload, field);
  // A URL past 8 KB is dropped by design (MAX_URL_LENGTH); a long payload leaves only its left marker
  // on a cut line, and a long URL wraps mid-word on screen.
  if (field === 'linkUrl' && payload.seq.length > 8000) return { field, payload, words: [] };
  const words = payload.long && (SINGLE_LINE.includes(field) || field === 'linkUrl') ? [a] : [a, z];
  return { field, payload, words };
}

type HeaderPath = 'raw8' | 'ewB' | 'ewQ';

function header(value: string, path: HeaderPath): string {
  return path === 'raw8' ? value : encodedWords(value, path === 'ewB' ? 'B' : 'Q');
}

function fileDisposition(name: string, path: 'raw8' | 'ewB' | 'ewQ' | 'rfc2231'): string {
  if (path === 'raw8') return `attachment; filename=${quoted(name)}`;
  if (path === 'rfc2231') {
    const pct = [...Buffer.from(name, 'utf8')].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`));
    return `attachment; filename*=utf-8''${pct.join('')}`;
  }
  return `attachment; filename="${encodedWords(name, path === 'ewB' ? 'B' : 'Q')}"`;
}

function encodeBody(text: string, path: MimePath): { cte: string; body: string } {
  const bytes = Buffer.from(text, 'utf8');
  if (path === 'qp') return { cte: 'quoted-printable', body: quotedPrintable(bytes) };
  if (path === 'b64') return { cte: 'base64', body: base64Lines(bytes) };
  return { cte: '8bit', body: text };
}

interface Parts {
  tag: string;
  to: string;
  from: string;
  subject: string;
  bodyType: 'text/plain' | 'text/html';
  body: string;
  bodyPath: MimePath;
  files: { name: string; path: 'raw8' | 'ewB' | 'ewQ' | 'rfc2231' }[];
}

function assemble(p: Parts): Buffer {
  const { cte, body } = encodeBody(p.body, p.bodyPath);
  const lines = [
    `From: ${p.from}`,
    `To: <${p.to}>`,
    `Subject: ${p.subject}`,
    `Message-ID: <${p.tag}@pty.safety.test>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="=_pty_q"',
    '',
    '--=_pty_q',
    `Content-Type: ${p.bodyType}; charset=utf-8`,
    `Content-Transfer-Encoding: ${cte}`,
    '',
    body,
  ];
  for (const f of p.files) {
    lines.push('--=_pty_q', 'Content-Type: application/octet-stream', `Content-Disposition: ${fileDisposition(f.name, f.path)}`, 'Content-Transfer-Encoding: base64', '', Buffer.from('x').toString('base64'));
  }
  lines.push('--=_pty_q--', '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

const FILE_PATHS = ['raw8', 'ewB', 'ewQ', 'rfc2231'] as const;

/** The T and H messages of one batch of payloads. */
export function batchMessages(batch: readonly Payload[], index: number, to: string, prefix = 'B'): PtyMessage[] {
  const v = hostileValue;
  let headerPath: HeaderPath = (['ewB', 'raw8', 'ewQ'] as const)[index % 3]!;
  // A raw header cannot carry CR, LF or NUL: such a batch travels in encoded-words instead.
  if (headerPath === 'raw8' && !batch.every(headerSafe)) headerPath = 'ewQ';
  const textPath: MimePath = (['raw8', 'qp', 'b64'] as const)[index % 3]!;
  const htmlPath: MimePath = (['entDec', 'raw8', 'entHex', 'qp', 'entNamed', 'b64'] as const)[index % 6]!;
  const half = Math.ceil(batch.length / 2);
  const fileOf = (p: Payload, j: number) => {
    const path = FILE_PATHS[(index + j) % 4]!;
    return { name: v(p, 'attachmentName'), path: path === 'raw8' && !headerSafe(p) ? ('ewB' as const) : path };
  };

  const tTag = `${prefix}${index}T`;
  const names = batch.map((p) => v(p, 'senderName')).join(' | ');
  const t: PtyMessage = {
    tag: tTag,
    raw: assemble({
      tag: tTag,
      to,
      from: `${headerPath === 'raw8' ? quoted(names) : header(names, headerPath)} <plain@example.org>`,
      subject: header(`${tTag} ${batch.map((p) => v(p, 'subject')).join(' | ')}`, headerPath),
      bodyType: 'text/plain',
      body: `${tTag} text\n${batch.map((p) => v(p, 'textBody')).join('\n')}\nend of text\n`,
      bodyPath: textPath,
      files: batch.slice(0, half).map(fileOf),
    }),
    expect: batch.flatMap((p, j) => [
      expected(p, 'subject'),
      expected(p, 'senderName'),
      expected(p, 'textBody'),
      ...(j < half ? [expected(p, 'attachmentName')] : []),
    ]),
  };

  // The address: quoted local parts holding every payload a raw header can carry, half in H and half
  // in a third message "E", so that each From line fits the screen.
  const addressable = batch.filter(headerSafe);
  const split = Math.ceil(addressable.length / 2);
  const local = (list: Payload[]) => quoted(list.map((p) => v(p, 'senderEmail')).join(' | '));
  const hTag = `${prefix}${index}H`;
  const html = [
    `<html><body><p>${hTag} html</p>`,
    ...batch.map((p) => `<p>${htmlText(v(p, 'htmlBody'), htmlPath)}</p>`),
    ...batch.map((p) => `<p><a href="https://example.org/${htmlText(v(p, 'linkUrl'), htmlPath)}">${htmlText(v(p, 'linkText'), htmlPath)}</a></p>`),
    '<p>end of html</p></body></html>',
  ].join('\n');
  const h: PtyMessage = {
    tag: hTag,
    raw: assemble({
      tag: hTag,
      to,
      from: `Plain H <${local(addressable.slice(0, split))}@example.org>`,
      subject: header(`${hTag} ${batch.map((p) => v(p, 'subject')).join(' | ')}`, headerPath),
      bodyType: 'text/html',
      body: `${html}\n`,
      bodyPath: htmlPath,
      files: batch.slice(half).map((p, j) => fileOf(p, j + half)),
    }),
    expect: batch.flatMap((p, j) => [
      expected(p, 'subject'),
      ...(addressable.slice(0, split).includes(p) ? [expected(p, 'senderEmail')] : []),
      expected(p, 'htmlBody'),
      expected(p, 'linkText'),
      expected(p, 'linkUrl'),
      ...(j >= half ? [expected(p, 'attachmentName')] : []),
    ]),
  };
  const rest = addressable.slice(split);
  if (rest.length === 0) return [t, h];
  const eTag = `${prefix}${index}E`;
  const e: PtyMessage = {
    tag: eTag,
    raw: assemble({
      tag: eTag,
      to,
      from: `Plain E <${local(rest)}@example.org>`,
      subject: eTag,
      bodyType: 'text/plain',
      body: `${eTag} text\n`,
      bodyPath: 'raw8',
      files: [],
    }),
    expect: rest.map((p) => expected(p, 'senderEmail')),
  };
  return [t, h, e];
}
