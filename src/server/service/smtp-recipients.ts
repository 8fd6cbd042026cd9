/**
 * The mail service's side of SMTP: RCPT TO's verdict and DATA's delivery. RCPT finds the address's
 * session and its message count in one store read (Store.recipientInbox) and hands the session back as
 * the accepted mailbox; DATA stores into the mailboxes its RCPTs accepted, checked again for expiry only,
 * with no second lookup. So a message goes to the mailbox the sender's RCPT was answered for: should
 * the address change hands in between (its session deleted, the name taken again), the new holder does
 * not get mail addressed to the old one (the store finds the old session gone). A recipient without a
 * mailbox (a caller that did not ask recipient()) is looked up at DATA as before.
 */
import { recipientKey } from '../mail/addresses';
import type { Clock, ServerConfig } from '../config/server-config';
import {
  ServiceError,
  type DeliverOutcome,
  type Mailbox,
  type MailService,
  type RecipientCheck,
} from './service-types';
import type { RecipientInbox, Store, StoredSession } from '../store/store';

/**
 * What a path into the inboxes takes of the mail service (SMTP's recipients here, fetched mail in
 * external-intake.ts): the store, the config, the clock, its guarded store call, and its parse and store.
 */
export interface MailStoringDeps {
  store: Store;
  config: ServerConfig;
  clock: Clock;
  /** The service's wrapper of a store call (a failure becomes storage_unavailable). */
  guarded<T>(work: () => Promise<T>, isWrite?: boolean): Promise<T>;
  /**
   * The service's parse and store path (session id -> recipient); the sessions' watchers hear of what
   * is stored, and `clientIp` (SMTP's) is kept with the message (with the envelope sender) for the admin API.
   */
  storeFor(
    targets: Map<string, string>,
    raw: Buffer,
    envelopeFrom: string,
    now: number,
    sessions: Map<string, StoredSession>,
    clientIp?: string,
  ): Promise<DeliverOutcome>;
}

export interface SmtpRecipientsDeps extends MailStoringDeps {
  /** Our domains, lower case, as the config says now (a reload changes it in place). */
  ourDomains(): string[];
  /** Catch-all (config.catchAll): makes the inbox of an unknown name at our domains; false when it cannot. */
  makeInbox?: (key: string) => Promise<boolean>;
}

/** What a store that does not group deliveries is told when a message's body has arrived. */
const nothingToSay = () => undefined;

/** The SMTP operations of one mail service. */
export function smtpRecipients(
  deps: SmtpRecipientsDeps,
): Pick<MailService, 'recipient' | 'checkRecipient' | 'deliver' | 'deliveryComing'> {
  const { store, config, clock, guarded, storeFor, ourDomains, makeInbox } = deps;
  // Read at each use: a reload (SIGHUP) changes the domains and accounts in place.
  const keyOf = (address: string) =>
    recipientKey({ domains: ourDomains(), extmailAccounts: config.extmailAccounts }, address);

  async function recipient(address: string): Promise<RecipientCheck> {
    const key = keyOf(address);
    if (!key) return { verdict: 'unknown' };
    let found = await guarded(() => store.recipientInbox(key));
    // A refusal rests on a read made now, never on a recent answer the store kept.
    if (found?.recent && refusal(found) !== undefined) found = await guarded(() => store.recipientInbox(key, true));
    // Catch-all: an unknown name at our domains gets its inbox now (an alias of an IMAP account does not).
    if (!found && makeInbox && ourDomains().includes(key.slice(key.lastIndexOf('@') + 1)) && (await makeInbox(key))) {
      found = await guarded(() => store.recipientInbox(key, true));
    }
    if (!found) return { verdict: 'unknown' };
    return refusal(found) ?? { verdict: 'ok', mailbox: found.session as unknown as Mailbox };
  }

  function refusal(found: RecipientInbox): RecipientCheck | undefined {
    if (found.session.expiresAt <= clock()) return { verdict: 'expired' };
    if (found.messages >= config.inboxLimit) return { verdict: 'full' };
    return undefined;
  }

  /** The session `address` names now, when it is live (DATA without RCPT's mailbox). */
  async function lookUp(address: string): Promise<StoredSession | undefined> {
    const key = keyOf(address);
    return key ? await guarded(() => store.findSessionByAddress(key)) : undefined;
  }

  return {
    recipient,

    async checkRecipient(address) {
      return (await recipient(address)).verdict;
    },

    deliveryComing() {
      return store.deliveryComing?.() ?? nothingToSay;
    },

    async deliver({ raw, recipients, envelopeFrom, mailboxes, clientIp }) {
      if (raw.length > config.maxMessageBytes) {
        throw new ServiceError('too_large', `Message is larger than ${config.maxMessageBytes} bytes`);
      }
      const now = clock();
      // One copy per live session: "A@x", "a@x" and a dot variant of one alias land once.
      const targets = new Map<string, string>();
      const sessions = new Map<string, StoredSession>();
      for (const [i, r] of recipients.entries()) {
        const found = (mailboxes?.[i] as unknown as StoredSession | undefined) ?? (await lookUp(r));
        if (found && found.expiresAt > now && !targets.has(found.id)) {
          targets.set(found.id, r);
          sessions.set(found.id, found);
        }
      }
      return storeFor(targets, raw, envelopeFrom ?? '', now, sessions, clientIp);
    },
  };
}
