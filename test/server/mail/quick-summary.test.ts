/**
 * quickSummary answers only where mailparser could not answer otherwise: over a corpus of sender,
 * subject and MIME-structure variants, each of its answers is compared with mailparser's full parse
 * (same sender, same subject, no attachment), and the common plain shapes must get an answer at all.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../../src/server/mail/mime';
import { PARSE_ON_READ_MAX, quickSummary } from '../../../src/server/mail/quick-summary';

const FROMS = [
  undefined,
  'From: "Acme Shop" <acme-shop@example.org>',
  'From: Acme Shop <acme-shop@example.org>',
  'From: <noreply@example.org>',
  'From: noreply@example.org',
  'From: "Amazon.com" <store-news@amazon.com>',
  'From: "Bob O\'Neil" <bob.o-neil+tag@mail.example.co.uk>',
  'From: "Acme  Shop" <a@example.org>',
  'From: " Acme" <a@example.org>',
  'From: "Acme \\"Q\\" Shop" <a@example.org>',
  'From: "Acme"<a@example.org>',
  'From: Acme Shop<a@example.org>',
  'From: a@example.org (Acme Shop)',
  'From: "Smith, John" <j@example.org>',
  'From: =?UTF-8?B?w4RwZmVs?= <a@example.org>',
  'From: "Café" <a@example.org>',
  'From: Acme <a@xn--bcher-kva.example>',
  'From: a@example.org, b@example.org',
  'From: Group: a@example.org;',
  'From:\r\n "Acme Shop"\r\n\t<acme@example.org>',
  'From: ACME <MixedCase@Example.ORG>',
  'From: "x" <>',
  'From: "" <a@example.org>',
  // mailsplit drops a first line "From ..." as an mbox separator: no sender at all then.
  'From : x@evil.example',
];

const SUBJECTS = [
  undefined,
  'Subject: Your order has shipped',
  'Subject:    padded   inside   ',
  'Subject: folded\r\n  onto two lines',
  'Subject: tab\there',
  'Subject: =?UTF-8?Q?caf=C3=A9?=',
  'Subject: a =? b',
  'Subject: naïve',
  'Subject:',
  'Subject : spaced name',
  'SUBJECT: upper case name',
];

const BODY = 'Hello,\r\n\r\nYour verification code is 123456.\r\n';
const ALT = (parts: string[], boundary = 'b1') =>
  `\r\nThis is a multi-part message.\r\n${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`;

const STRUCTURES: { header: string[]; body: string }[] = [
  { header: [], body: BODY },
  { header: ['Content-Type: text/plain; charset=utf-8'], body: BODY },
  { header: ['Content-Type: text/html; charset="utf-8"'], body: '<p>Hello</p>\r\n' },
  { header: ['Content-Type: text/plain', 'Content-Disposition: inline'], body: BODY },
  { header: ['Content-Type: text/plain', 'Content-Disposition: attachment; filename=a.txt'], body: BODY },
  { header: ['Content-Type: text/plain', 'Content-Disposition: form-data'], body: BODY },
  { header: ['Content-Type: application/pdf'], body: 'JVBERi0=\r\n' },
  { header: ['Content-Type: text/calendar'], body: 'BEGIN:VCALENDAR\r\n' },
  {
    header: ['MIME-Version: 1.0', 'Content-Type: multipart/alternative; boundary="b1"'],
    body: ALT([
      'Content-Type: text/plain; charset=utf-8\r\n\r\nHello',
      'Content-Type: text/html; charset=utf-8\r\n\r\n<p>Hello</p>',
    ]),
  },
  {
    header: ['Content-Type: multipart/alternative;\r\n boundary=b1'],
    body: ALT([
      '\r\nno header at all',
      'Content-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>=3D</p>',
    ]),
  },
  {
    header: ['Content-Type: multipart/alternative; boundary="b1"'],
    body: ALT([
      'Content-Type: text/plain\r\n\r\nHello',
      'Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0K',
    ]),
  },
  {
    header: ['Content-Type: multipart/alternative; boundary="b1"'],
    body: ALT(['Content-Type: text/plain\r\nContent-Disposition: attachment; filename="x.txt"\r\n\r\nHello']),
  },
  {
    header: ['Content-Type: multipart/mixed; boundary="b1"'],
    body: ALT([
      'Content-Type: text/plain\r\n\r\nHello',
      'Content-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment\r\n\r\nJVBE',
    ]),
  },
  {
    header: ['Content-Type: multipart/alternative; boundary="b1"'],
    body: ALT([
      'Content-Type: multipart/related; boundary="b2"\r\n\r\n--b2\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--b2--',
    ]),
  },
  // No closing delimiter: not read here.
  {
    header: ['Content-Type: multipart/alternative; boundary="b1"'],
    body: '\r\n--b1\r\nContent-Type: text/plain\r\n\r\nHello\r\n',
  },
  // A delimiter line with blanks after it, and an epilogue.
  {
    header: ['Content-Type: multipart/alternative; boundary=b1'],
    body: '\r\n--b1 \t\r\nContent-Type: text/plain\r\n\r\nHello\r\n--b1--  \r\nepilogue\r\n',
  },
  { header: ['Content-Type: multipart/alternative; boundary*=b1'], body: ALT(['Content-Type: text/plain\r\n\r\nx']) },
  { header: ['Content-Type: text/plain (comment)'], body: BODY },
  { header: ['Content-Type: text/plain', 'Content-Type: application/octet-stream'], body: BODY },
  { header: ['Content-Type: TEXT/PLAIN', 'Content-Disposition: INLINE'], body: BODY },
  // mailsplit splits any part that names a boundary, text or not.
  {
    header: ['Content-Type: text/plain; boundary=x'],
    body: 'hi\r\n--x\r\nContent-Type: application/pdf\r\n\r\nJVBER\r\n--x--\r\n',
  },
  {
    header: ['Content-Type: multipart/alternative; boundary=b1'],
    body: ALT([
      'Content-Type: text/plain; boundary=y\r\n\r\nhi\r\n--y\r\nContent-Type: application/pdf\r\n\r\nJVBE\r\n--y--',
    ]),
  },
  // With no Content-Type, a filename makes mailsplit guess the type (application/pdf here).
  { header: ['Content-Disposition: inline; filename=x.pdf'], body: 'JVBER\r\n' },
  {
    header: ['Content-Type: multipart/alternative; boundary=b1'],
    body: ALT(['Content-Disposition: inline; filename=x.pdf\r\n\r\nJVBE']),
  },
  // A quoted boundary's trailing blank is trimmed by mailsplit.
  {
    header: ['Content-Type: multipart/alternative; boundary="b "'],
    body: '\r\n--b \r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\nContent-Type: application/pdf\r\n\r\nJVBER\r\n--b --\r\n',
  },
  // mailsplit takes "\r--b" for a delimiter too.
  {
    header: ['Content-Type: multipart/alternative; boundary=b'],
    body: '--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n\r--b\r\nContent-Type: application/pdf\r\n\r\nJVBER\r\n--b--\r\n',
  },
  // Past ~1,000 blanks a "delimiter" is content to mailsplit.
  {
    header: ['Content-Type: multipart/alternative; boundary=b'],
    body: `--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--${' '.repeat(1000)}\r\n--b\r\nContent-Type: application/pdf\r\n\r\nJVBER\r\n--b--\r\n`,
  },
];

function message(parts: (string | undefined)[], body: string): Buffer {
  return Buffer.from(
    `${[...parts.filter((p) => p !== undefined), 'To: <x@tempmail.test>'].join('\r\n')}\r\n\r\n${body}`,
    'utf8',
  );
}

describe('quickSummary', () => {
  it('answers only what mailparser answers, over every combination of the corpus', async () => {
    let answered = 0;
    let total = 0;
    for (const from of FROMS) {
      for (const subject of SUBJECTS) {
        for (const s of STRUCTURES) {
          const raw = message([from, subject, ...s.header], s.body);
          total++;
          const quick = quickSummary(raw, 'envelope@example.net');
          if (!quick) continue;
          answered++;
          const full = await parseMessage(raw, 'envelope@example.net');
          const what = raw.toString('utf8');
          expect({ senderName: full.senderName, senderEmail: full.senderEmail, subject: full.subject }, what).toEqual(
            quick,
          );
          expect(full.attachments, what).toEqual([]);
        }
      }
    }
    // Most of the corpus is beyond it on purpose (~8% of it is plain enough): answers there must be.
    expect(answered).toBeGreaterThan(total / 20);
  });

  it('answers for the plain shapes mail mostly comes in', () => {
    const plain = [
      message(
        ['From: "Acme Shop" <acme-shop@example.org>', 'Subject: Your code', 'Content-Type: text/plain; charset=utf-8'],
        BODY,
      ),
      message(['From: noreply@example.org', 'Subject: Hi'], BODY),
      message(
        ['From: Acme <a@example.org>', 'Subject: Hi', 'Content-Type: multipart/alternative; boundary="=_abc"'],
        ALT(['Content-Type: text/plain\r\n\r\nx', 'Content-Type: text/html\r\n\r\n<b>x</b>'], '=_abc'),
      ),
    ];
    for (const raw of plain) expect(quickSummary(raw), raw.toString()).toBeDefined();
    expect(quickSummary(message([], BODY), 'bounce@example.net')).toEqual({
      senderName: '',
      senderEmail: 'bounce@example.net',
      subject: '',
    });
  });

  it('leaves to the parse what has attachments, encoded words, 8-bit headers, no body, or is large', () => {
    const beyond = [
      message(
        ['From: a@example.org', 'Content-Type: multipart/mixed; boundary=b1'],
        ALT(['Content-Type: text/plain\r\n\r\nx']),
      ),
      message(['From: a@example.org', 'Subject: =?UTF-8?B?w4Q=?='], BODY),
      message(['From: a@example.org', 'Subject: naïve'], BODY),
      Buffer.from('From: a@example.org\r\nSubject: header only\r\n'),
      message(['From: a@example.org'], 'x'.repeat(PARSE_ON_READ_MAX)),
    ];
    for (const raw of beyond) expect(quickSummary(raw), raw.toString().slice(0, 200)).toBeUndefined();
  });
});
