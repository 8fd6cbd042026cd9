/**
 * The mail service's side of fetching external accounts (ExternalIntake in service-types.ts): which
 * fetched message belongs to which live session, storing it through the same parse and store path as
 * SMTP, and the store's cursors and claims. The IMAP front end (src/server/imap/) depends only on this.
 */
import { aliasKey } from '../mail/addresses';
import { ServiceError, type ExternalIntake } from './service-types';
import type { MailStoringDeps } from './smtp-recipients';
import type { StoredSession } from '../store/store';

export interface ExternalIntakeDeps extends MailStoringDeps {
  /** Whether the storage cap is reached: fetched mail then stays in its account (the fetcher tries again). */
  storageFull?: () => boolean;
}

/** The ExternalIntake operations of one mail service. */
export function externalIntake(deps: ExternalIntakeDeps): ExternalIntake {
  const { store, config, clock, guarded, storeFor, storageFull } = deps;

  /**
   * Live sessions among the aliases of account `accountId` in `addresses`: session id -> the alias as
   * written, and session id -> the session. One store lookup per distinct alias, for the first
   * maxRecipients of them (anyone who mails the account writes the list); `unchecked` counts the rest.
   */
  async function liveSessions(accountId: number, addresses: readonly string[], now: number) {
    const account = config.extmailAccounts[accountId - 1];
    const found = new Map<string, string>();
    const sessions = new Map<string, StoredSession>();
    const keys = new Set<string>();
    const left = new Set<string>();
    if (!account) return { found, sessions, unchecked: 0 };
    for (const address of addresses) {
      const key = aliasKey(account, address);
      if (!key || keys.has(key)) continue;
      if (keys.size >= config.maxRecipients) {
        left.add(key);
        continue;
      }
      keys.add(key);
      const session: StoredSession | undefined = await guarded(() => store.findSessionByAddress(key));
      if (session && session.expiresAt > now && !found.has(session.id)) {
        found.set(session.id, address);
        sessions.set(session.id, session);
      }
    }
    return { found, sessions, unchecked: left.size };
  }

  /** Whether session `id` already holds a message of exactly these bytes. */
  async function holds(id: string, raw: Buffer): Promise<boolean> {
    for (const meta of await guarded(() => store.listMessages(id))) {
      if (meta.size !== raw.length) continue;
      const kept = await guarded(() => store.rawMessage(id, meta.id));
      if (kept?.equals(raw)) return true;
    }
    return false;
  }

  return {
    async liveAliases(accountId, addresses) {
      const { found, unchecked } = await liveSessions(accountId, addresses, clock());
      return { aliases: [...found.values()], unchecked };
    },

    async deliverFetched({ accountId, raw, aliases, skipHeld }) {
      if (raw.length > config.maxMessageBytes) {
        throw new ServiceError('too_large', `Message is larger than ${config.maxMessageBytes} bytes`);
      }
      const now = clock();
      const { found: targets, sessions } = await liveSessions(accountId, aliases, now);
      // As SMTP's 452 4.3.1: the message stays where it is (its account), and is fetched again later.
      // Taken regardless, mail to an external account (anyone can send it) filled the disk past the cap.
      if (targets.size > 0 && storageFull?.()) {
        throw new ServiceError(
          'storage_unavailable',
          'the storage cap is reached (the message stays in the account until there is room)',
        );
      }
      const held: string[] = [];
      if (skipHeld) {
        for (const [id, alias] of targets) {
          if (!(await holds(id, raw))) continue;
          held.push(alias);
          targets.delete(id);
        }
      }
      const outcome = await storeFor(targets, raw, '', now, sessions);
      if (outcome.capped)
        throw new ServiceError(
          'storage_unavailable',
          'the storage cap is reached (the message stays in the account until there is room)',
        );
      return { stored: outcome.full ? [] : [...targets.values()], held, full: outcome.full ?? [] };
    },

    fetchCursor: (account, folder) => guarded(() => store.getFetchCursor(account, folder)),
    saveFetchCursor: (account, folder, cursor) => guarded(() => store.putFetchCursor(account, folder, cursor), true),
    claimFetch: (account) => guarded(() => store.claimFetch(account)),
    fetchStatus: (account) => guarded(() => store.getFetchStatus(account)),
    reportFetchStatus: (account, status) => guarded(() => store.putFetchStatus(account, status), true),
  };
}
