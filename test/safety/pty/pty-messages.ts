/**
 * The messages of the pseudo-terminal level of the safety matrix, from the specs of pty-plan.ts: a raw
 * RFC 5322 mail for SMTP into `serve` (each field through the path its spec names), or a wire message
 * for the JSON service (spec-service.ts with `escapeJson`, so every control travels as a `\u` escape).
 * Marker words around each payload say which payload and field it is; the tag starts the subject.
 */
import type { WireMessage } from '../../faults/spec-service';
import { encodedWords, htmlText, percentEncoded, quoted, transferEncoded, type MimePath } from '../eml';
import { hostileValue, type Field, type Payload } from '../payloads';
import type { FilePath, HeaderPath, Spec } from './pty-plan';

const values = (payloads: Payload[], field: Field, sep: string) =>
  payloads.map((p) => hostileValue(p, field)).join(sep);

const subjectOf = (spec: Spec) => `${spec.tag} ${values(spec.subject, 'subject', ' | ')}`.trimEnd();
const namesOf = (spec: Spec) => (spec.names.length ? values(spec.names, 'senderName', ' | ') : `Plain ${spec.tag}`);
const textOf = (spec: Spec) => `${spec.tag} text\n${values(spec.body.payloads, 'textBody', '\n')}\nend of text\n`;

/** The HTML body: a paragraph per payload, then a link per payload (its text and its URL hostile). */
function htmlOf(spec: Spec, path: MimePath | 'json'): string {
  const h = (p: Payload, f: Field) =>
    path === 'json' ? htmlText(hostileValue(p, f), 'raw8') : htmlText(hostileValue(p, f), path);
  const { payloads } = spec.body;
  return [
    `<html><body><p>${spec.tag} html</p>`,
    ...payloads.map((p) => `<p>${h(p, 'htmlBody')}</p>`),
    ...payloads.map((p) => `<p><a href="https://example.org/${h(p, 'linkUrl')}">${h(p, 'linkText')}</a></p>`),
    '<p>end of html</p></body></html>',
    '',
  ].join('\n');
}

function header(value: string, path: HeaderPath): string {
  return path === 'raw8' ? value : encodedWords(value, path === 'ewB' ? 'B' : 'Q');
}

function fileDisposition(name: string, path: FilePath): string {
  if (path === 'raw8') return `attachment; filename=${quoted(name)}`;
  if (path === 'rfc2231') return `attachment; filename*=utf-8''${percentEncoded(name)}`;
  return `attachment; filename="${encodedWords(name, path === 'ewB' ? 'B' : 'Q')}"`;
}

/** The raw mail of a MIME spec, addressed to `to`. Raw 8-bit text keeps its bare CRs and LFs. */
export function toEml(spec: Spec, to: string): Buffer {
  const { headerPath, body: b } = spec;
  if (headerPath === 'json' || b.path === 'json') throw new Error(`${spec.tag}: a JSON spec is not a mail`);
  const names = namesOf(spec);
  const name = spec.names.length === 0 ? names : headerPath === 'raw8' ? quoted(names) : header(names, headerPath);
  const local = spec.emails.length ? quoted(values(spec.emails, 'senderEmail', ' | ')) : 'plain';
  const { cte, body } = transferEncoded(b.type === 'text' ? textOf(spec) : htmlOf(spec, b.path), b.path);
  const lines = [
    `From: ${name} <${local}@example.org>`,
    `To: <${to}>`,
    `Subject: ${header(subjectOf(spec), headerPath)}`,
    `Message-ID: <${spec.tag}@pty.safety.test>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="=_pty_q"',
    '',
    '--=_pty_q',
    `Content-Type: text/${b.type === 'text' ? 'plain' : 'html'}; charset=utf-8`,
    `Content-Transfer-Encoding: ${cte}`,
    '',
    body,
  ];
  for (const f of spec.files) {
    if (f.path === 'json') throw new Error(`${spec.tag}: a JSON attachment in a mail`);
    const disposition = fileDisposition(hostileValue(f.payload, 'attachmentName'), f.path);
    lines.push(
      '--=_pty_q',
      'Content-Type: application/octet-stream',
      `Content-Disposition: ${disposition}`,
      'Content-Transfer-Encoding: base64',
      '',
      'eA==',
    );
  }
  lines.push('--=_pty_q--', '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

/** The wire message of a JSON spec (the service escapes it). */
export function toWire(spec: Spec): Omit<WireMessage, 'id' | 'received_at'> {
  const emails = spec.emails.length ? values(spec.emails, 'senderEmail', ' | ') : 'plain';
  return {
    subject: subjectOf(spec),
    sender_name: namesOf(spec),
    sender_email: `${emails}@example.org`,
    body_text: spec.body.type === 'text' ? textOf(spec) : null,
    body_html: spec.body.type === 'html' ? htmlOf(spec, 'json') : null,
    attachments: spec.files.map((f, i) => ({
      id: i + 1,
      filename: hostileValue(f.payload, 'attachmentName'),
      content_type: 'application/octet-stream',
      size: 1,
    })),
  };
}
