/**
 * Sends the sample message over real SMTP to the local service (its own port, or the port of the one it
 * shares), as any mail program would: the message then takes the service's whole way in (the SMTP
 * dialog, parsing, storing, the new-mail push), not a shortcut into the store. nodemailer speaks SMTP
 * and writes the MIME; it is loaded only when `T` is pressed. A failure is said in words, never a Node
 * error code, and what the service answered is made terminal-safe and cut short.
 */
import { safeLine } from '../../text/safe-text';
import type { SampleMessage } from './sample-message';

/** Where the local service takes mail. */
export interface SmtpTarget {
  smtpHost: string;
  smtpPort: number;
}

// Loopback: a healthy service answers within milliseconds; these only end a stuck dialog.
const CONNECT_MS = 5_000;
const DIALOG_MS = 10_000;

/** Sends `message`; rejects with a SampleError that says why in words. */
export async function sendSample(target: SmtpTarget, message: SampleMessage): Promise<void> {
  // The SMTP transport and the composer alone: nodemailer's other transports stay out of the chunk.
  const [{ default: Mail }, { default: SMTPTransport }] = await Promise.all([
    import('nodemailer/lib/mailer'),
    import('nodemailer/lib/smtp-transport'),
  ]);
  const options = {
    host: target.smtpHost,
    port: target.smtpPort,
    secure: false,
    // The local service offers no STARTTLS and asks no login: loopback only.
    ignoreTLS: true,
    connectionTimeout: CONNECT_MS,
    greetingTimeout: CONNECT_MS,
    socketTimeout: DIALOG_MS,
  };
  const transport = new Mail(new SMTPTransport(options), options);
  try {
    await transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
  } catch (error) {
    throw new SampleError(sampleFailure(error, target));
  } finally {
    transport.close();
  }
}

/** A sample that was not sent; its message is a line for the status bar. */
export class SampleError extends Error {}

/** Why a send failed, in a few words: what the service answered, or what became of the connection. */
function sampleFailure(error: unknown, target: SmtpTarget): string {
  const where = `${safeLine(target.smtpHost, 100)}:${target.smtpPort}`;
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    responseCode?: unknown;
    response?: unknown;
    code?: unknown;
    message?: unknown;
  };
  if (typeof e.responseCode === 'number' && typeof e.response === 'string') {
    return `the service at ${where} answered: ${safeLine(e.response, 160)}`;
  }
  const text = `${typeof e.code === 'string' ? e.code : ''} ${typeof e.message === 'string' ? e.message : ''}`;
  if (/ECONNREFUSED/.test(text)) return `nothing answers at ${where} (has the local service stopped?)`;
  if (/ETIMEDOUT|timeout/i.test(text)) return `no answer from ${where} in time`;
  if (/ECONNRESET|EPIPE|closed/i.test(text)) return `${where} closed the connection`;
  return `the SMTP dialog with ${where} failed`;
}
