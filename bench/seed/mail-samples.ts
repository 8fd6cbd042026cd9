/**
 * The messages the bench sends and stores: an ordinary ~3 KB notification (plain text, a verification
 * code, the headers a real sender writes) and the 2 MB HTML newsletter. Deterministic but for what the
 * caller varies (the subject), so two runs move the same bytes.
 */
import { newsletterHtml } from '../html-fixture';

const SENDERS = ['Acme Shop', 'Example Bank', 'Parcel Tracker', 'Forum Digest', 'Cloud Console', 'Travel Desk'];

/** The body of a notification: ~2.7 KB of ordinary prose with a code in it. */
function notificationBody(i: number): string {
  const code = String(100000 + ((i * 7919) % 900000));
  const para =
    'Thank you for your order. We are getting it ready to ship and will let you know when it is on its way. ' +
    'You can review the items, the delivery address and the payment method in your account at any time.';
  const lines = [`Hello,`, '', `Your verification code is ${code}.`, ''];
  for (let p = 0; p < 10; p++) lines.push(para.slice(0, 76), para.slice(76, 152), para.slice(152), '');
  lines.push(
    'Kind regards,',
    'The team',
    '',
    'You receive this because you asked for it. Manage your settings online.',
  );
  return lines.join('\r\n');
}

/**
 * The same notification with its subject as an encoded word (RFC 2047, as mailers write a subject that is
 * not ASCII): a message the service parses before its 250, where the plain one is parsed when read.
 */
export function encodedNotification(to: string, subject: string, i = 0): string {
  return notification(to, `=?UTF-8?Q?${encodeURIComponent(`${subject} ✓`).replace(/%/g, '=')}?=`, i);
}

/** A ~3 KB plain-text notification to `to` with `subject`. */
export function notification(to: string, subject: string, i = 0): string {
  const sender = SENDERS[i % SENDERS.length]!;
  const from = `${sender.toLowerCase().replace(/ /g, '-')}@example.org`;
  return [
    `From: "${sender}" <${from}>`,
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Date: ${new Date(Date.UTC(2026, 0, 1, 12, 0, i % 60)).toUTCString()}`,
    `Message-ID: <bench-${i}-${Date.now().toString(36)}@example.org>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    notificationBody(i),
    '',
  ].join('\r\n');
}

/** The first words of the newsletter's body: what "its text on screen" waits for. */
export function newsletterOpening(i: number): string {
  return `Newsletter ${i} starts here`;
}

let html2mb: string | undefined;

/** The 2 MB HTML of newsletter `i` (its opening words first): the same bytes the raw html-to-text baseline converts. */
export function newsletterHtmlFor(i: number): string {
  html2mb ??= newsletterHtml(2 * 1024 * 1024);
  return html2mb.replace('<body style="margin:0;padding:0;background:#f4f4f4">', `$&<p>${newsletterOpening(i)}</p>`);
}

/** A 2 MB HTML newsletter (HTML part only, base64 as senders of big HTML mail do) to `to`. */
export function newsletter(to: string, subject: string, i: number): string {
  const base64 = Buffer.from(newsletterHtmlFor(i), 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    'From: "Example Shop" <news@shop.example.com>',
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Date: ${new Date(Date.UTC(2026, 0, 1, 12, 0, 0)).toUTCString()}`,
    `Message-ID: <news-${i}@shop.example.com>`,
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64,
    '',
  ].join('\r\n');
}
