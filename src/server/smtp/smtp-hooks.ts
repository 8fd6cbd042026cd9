/**
 * What the SMTP front end asks and tells the rest of the service beyond the mail service itself: the
 * limits (src/server/limits/), the metrics and the storage health (src/server/observe/), and whatever
 * else wants a say at connect, MAIL FROM or RCPT TO (a block list). Each hook is optional; a refusal is
 * the reply the client hears, and `reason` names it in the log and the metrics.
 */

/** A refusal: the SMTP reply (enhanced code first in `text`) and a short reason. */
export interface SmtpRefusal {
  code: number;
  text: string;
  reason: string;
}

/** Who is talking: the connection's id, the client's address, whether STARTTLS is up. */
export interface SmtpPeer {
  id: string;
  client: string;
  tls: boolean;
}

export interface SmtpHooks {
  /** A connection arrived; a refusal (421) is said instead of the greeting and the connection closed. */
  connect?(peer: SmtpPeer): SmtpRefusal | undefined;
  /** The connection is gone (admitted or refused). */
  closed?(peer: SmtpPeer): void;
  /** EHLO or HELO; a refusal (421, storage down) closes the connection. */
  greet?(peer: SmtpPeer): SmtpRefusal | undefined;
  /** MAIL FROM `sender` ('' for a bounce). */
  mailFrom?(peer: SmtpPeer, sender: string): Promise<SmtpRefusal | undefined>;
  /** RCPT TO `recipient`, before the mail service is asked about it. */
  rcpt?(peer: SmtpPeer, recipient: string): Promise<SmtpRefusal | undefined>;
  /** A STARTTLS handshake ended (`reason` of a failure, for the log). */
  tls?(peer: SmtpPeer, ok: boolean, reason?: string): void;
  /** A message or a recipient was refused, for `reason` (every refusal, whoever decided it). */
  refused?(peer: SmtpPeer, reason: string): void;
}
