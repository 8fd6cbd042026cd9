/**
 * What the SMTP front end asks of the mail service, and how it answers the client with it: RCPT TO's
 * verdict (the mailbox it accepted is kept for DATA: the message goes there, with no second lookup) and
 * DATA's delivery, answered 250 only once the service says the message is durably stored. The SMTP
 * client's address and envelope sender go with the message, for the admin API.
 */
import type { SMTPServerAddress, SMTPServerSession } from 'smtp-server';
import type { LogFields, LogLevel } from '../observe/log';
import { messageIdOf } from '../observe/message-id';
import { ServiceError, type Mailbox, type MailService, type RecipientVerdict } from '../service/service-types';
import { plainIp } from '../limits/ip-address';
import { peerOf } from './connection-watch';
import type { SmtpHooks } from './smtp-hooks';
import { listed, reply } from './smtp-replies';

export interface SmtpDeliveryDeps {
  service: MailService;
  hooks: SmtpHooks;
  /** One line about `session`, with its client and TLS as fields. */
  note(
    session: SMTPServerSession,
    level: LogLevel,
    event: string,
    text: string,
    reason?: string,
    more?: LogFields,
  ): void;
}

/** The envelope sender for a log line: `<>` for a bounce (null sender), `?` before MAIL FROM. */
export function senderOf(session: SMTPServerSession): string {
  const from = session.envelope.mailFrom;
  if (!from) return '?';
  return from.address === '' ? '<>' : from.address;
}

/** A message past DATA, as store() read it. */
interface HeldMessage {
  recipients: string[];
  accepted: (Mailbox | undefined)[];
  envelopeFrom: string | undefined;
  who: string;
  messageId: string | undefined;
  refuse: (code: number, text: string, reason: string, level?: LogLevel) => ReturnType<typeof reply>;
}

/** The service's side of one SMTP front end's RCPT TO and DATA. */
export function smtpDelivery(deps: SmtpDeliveryDeps) {
  const { service, hooks, note } = deps;
  /** Each accepted RCPT's mailbox, by smtp-server's record of it in the envelope: DATA stores there, no lookup. */
  const mailboxes = new WeakMap<SMTPServerAddress, Mailbox>();

  /** The service's verdict on `address` as a refusal, or undefined when it is accepted. `isOurs`: relay or not. */
  async function recipientRefusal(
    address: SMTPServerAddress,
    session: SMTPServerSession,
    isOurs: (address: string) => boolean,
  ): Promise<ReturnType<typeof reply> | undefined> {
    let verdict: RecipientVerdict;
    try {
      const check = await service.recipient(address.address);
      if (check.mailbox) mailboxes.set(address, check.mailbox);
      verdict = check.verdict;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      note(session, 'warn', 'smtp.rcpt_check_failed', `smtp rcpt check failed: ${why}`, 'storage_unavailable');
      return reply(451, '4.3.0 Temporary failure, try again later', 'storage_unavailable');
    }
    if (verdict === 'ok') return undefined;
    if (verdict === 'full') return reply(452, '4.2.2 Mailbox full, try again later', 'mailbox_full');
    if (verdict === 'expired') return reply(550, '5.1.1 Mailbox expired', 'expired');
    // An address that is neither on our domains nor an alias of our accounts: we are no relay.
    if (!isOurs(address.address)) return reply(550, '5.7.1 Relay access denied', 'relay_denied');
    return reply(550, '5.1.1 No such mailbox', 'no_such_mailbox');
  }

  /** Stores DATA's message for the envelope's recipients: the 250 text, or the reply that refuses it. */
  async function store(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    const accepted = session.envelope.rcptTo.map((r) => mailboxes.get(r));
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
    const who = `from ${senderOf(session)} for ${listed(recipients)}`;
    const messageId = messageIdOf(raw);
    const refuse = (code: number, text: string, reason: string, level: LogLevel = 'info') => {
      note(session, level, 'smtp.refused', `smtp refused DATA (${raw.length} bytes ${who}): ${code} ${text}`, reason, {
        messageId,
        size: raw.length,
        recipients: recipients.length,
      });
      hooks.refused?.(peerOf(session), reason);
      return reply(code, text, reason);
    };
    const started = performance.now();
    let result: 'stored' | 'refused' | 'failed' = 'refused';
    try {
      // Room for every copy, beside what other transactions hold, before anything is stored (the cap).
      const held = await hooks.hold?.(peerOf(session), recipients.length, raw.length);
      if (typeof held === 'object') throw refuse(held.code, held.text, held.reason, 'warn');
      try {
        const answer = await deliverHeld(raw, session, { recipients, accepted, envelopeFrom, who, messageId, refuse });
        result = 'stored';
        return answer;
      } finally {
        held?.();
      }
    } catch (error) {
      if ((error as { reason?: string }).reason === 'storage_unavailable') result = 'failed';
      throw error;
    } finally {
      hooks.transaction?.(peerOf(session), result, performance.now() - started);
    }
  }

  async function deliverHeld(raw: Buffer, session: SMTPServerSession, m: HeldMessage): Promise<string> {
    const { recipients, accepted, envelopeFrom, who, messageId, refuse } = m;
    let delivered: number;
    let full: string[] | undefined;
    let capped: true | undefined;
    try {
      const clientIp = plainIp(session.remoteAddress);
      ({ delivered, full, capped } = await service.deliver({
        raw,
        recipients,
        envelopeFrom,
        mailboxes: accepted,
        clientIp,
      }));
    } catch (error) {
      const what = error instanceof ServiceError ? error.code : error instanceof Error ? error.message : String(error);
      note(
        session,
        'warn',
        'smtp.deliver_failed',
        `smtp deliver failed (${raw.length} bytes ${who}): ${what}`,
        'storage_unavailable',
        { messageId, size: raw.length, recipients: recipients.length },
      );
      hooks.refused?.(peerOf(session), 'storage_unavailable');
      // Never 250 and never a permanent refusal for our own trouble: the sender keeps the message and retries.
      throw reply(451, '4.3.0 Temporary failure storing the message, try again later', 'storage_unavailable');
    }
    // An inbox filled up between RCPT and the end of DATA (other connections, other services): nothing
    // was stored for anyone, so the sender's retry doubles nothing; at the retry RCPT TO refuses the
    // full mailbox and the others get the message.
    if (full) throw refuse(452, `4.2.2 Mailbox full (${listed(full, 3)}), try again later`, 'mailbox_full');
    // Other instances on the database filled the storage since this one counted (the database decided).
    if (capped) throw refuse(452, '4.3.1 Insufficient system storage, try again later', 'storage_full', 'warn');
    // Every recipient went away between RCPT and the end of DATA (expired): nobody holds the message.
    if (delivered === 0) throw refuse(550, '5.1.1 No live mailbox for this message', 'no_live_mailbox');
    // Fewer than listed: some expired between RCPT and the end of DATA.
    const some = delivered < recipients.length ? ` (${delivered} of ${recipients.length} still live)` : '';
    note(session, 'info', 'smtp.stored', `smtp stored ${raw.length} bytes ${who}${some}`, undefined, {
      messageId,
      size: raw.length,
      recipients: delivered,
    });
    return `2.0.0 Ok: stored for ${delivered} mailbox(es)`;
  }

  return { recipientRefusal, store };
}
