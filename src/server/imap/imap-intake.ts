/**
 * The IMAP front end of the reference service: one AccountFetcher per external account that has an
 * `imap` object, started with the service and closed with it. It depends only on the mail service
 * (ExternalIntake), as the SMTP and HTTP front ends do.
 */
import type { ServerConfig } from '../config/server-config';
import type { ExternalIntake } from '../service/service-types';
import { isLoopbackHost } from './account-config';
import { AccountFetcher, type FetchedAccount } from './account-fetcher';

export interface ImapIntake {
  /** Whether account `id` (1-based) is to be offered: true for accounts without IMAP. */
  isActive(id: number): boolean;
  /** How many accounts are in each state (starting, active, inactive, standby), for the metrics. */
  states(): Record<string, number>;
  /** Stops every fetcher and waits for the work in hand. */
  close(): Promise<void>;
}

/** Starts fetching every account of `config` that has an `imap` object. */
export function startImapIntake(
  intake: ExternalIntake,
  config: ServerConfig,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ImapIntake {
  const fetchers = new Map<number, AccountFetcher>();
  config.extmailAccounts.forEach((account, i) => {
    if (!account.imap) return;
    if (account.imap.tls === 'none' && !isLoopbackHost(account.imap.host)) {
      log(
        `WARNING: imap ${account.email}: "tls": "none" to ${account.imap.host}, which is not this machine: the password and ` +
          'every message cross the network in clear text, readable by anyone on the way. Use "tls" or "starttls".',
      );
    }
    const fetcher = new AccountFetcher({
      intake,
      accountId: i + 1,
      account: account as FetchedAccount,
      lifetimeMs: config.lifetimeSeconds * 1000,
      maxMessageBytes: config.maxMessageBytes,
      maxRecipients: config.maxRecipients,
      log,
      env,
    });
    fetchers.set(i + 1, fetcher);
    fetcher.start();
  });
  return {
    isActive: (id) => fetchers.get(id)?.active ?? true,
    states() {
      const counts: Record<string, number> = {};
      for (const f of fetchers.values()) counts[f.state] = (counts[f.state] ?? 0) + 1;
      return counts;
    },
    async close() {
      await Promise.all([...fetchers.values()].map((f) => f.close()));
    },
  };
}
