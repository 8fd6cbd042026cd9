/**
 * The sample message `T` sends in local mode (issue 26): a short sign-up mail with an HTML and a text
 * part, a verification code and a confirmation link, so a newcomer tries the viewer, `c`, `o` and the
 * code and link detectors on their first mail. The code and the link's token are new each time, as a
 * real sign-up's would be; the link goes to example.com, the domain set aside for examples.
 */
import { randomBytes, randomInt } from 'node:crypto';

export interface SampleMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The verification code it carries (the detector should find it). */
  code: string;
  /** The confirmation link it carries (the detector should find it). */
  link: string;
}

const SAMPLE_FROM = 'tempmail-tui sample <sample@example.com>';
const SAMPLE_SUBJECT = 'Your tempmail-tui sample: confirm this address';

/** A sample message to `to`; `code` and `token` are drawn at random unless given. */
export function sampleMessage(
  to: string,
  code = String(randomInt(100_000, 1_000_000)),
  token = randomBytes(9).toString('hex'),
): SampleMessage {
  const link = `https://example.com/confirm?token=${token}`;
  const intro =
    "This is a sample message. T sent it to this address through the local service's SMTP port, as any mail program on this machine can.";
  const tips =
    'Try it: c copies the code, o opens the link (1 picks it first), R shows the raw message, q goes back to the inbox.';
  const text = [
    intro,
    '',
    `Your verification code is ${code}.`,
    '',
    `Confirm your address: ${link}`,
    '',
    tips,
    '',
  ].join('\n');
  const html = [
    '<h2>Welcome to tempmail-tui</h2>',
    `<p>${intro}</p>`,
    `<p>Your verification code is <b>${code}</b>.</p>`,
    `<p><a href="${link}">Confirm your address</a></p>`,
    `<p>${tips}</p>`,
  ].join('\n');
  return { from: SAMPLE_FROM, to, subject: SAMPLE_SUBJECT, text, html, code, link };
}
