/**
 * Fetches one external account over IMAP, for as long as the service runs: one imapflow connection,
 * IDLE on the first folder where the server offers it (new mail there is fetched at once), every folder
 * checked every `pollSeconds` (all of them, without IDLE). A failed connection is tried again after
 * 1, 2, 4 ... up to 60 s; a working one that drops is reconnected at once.
 *
 * Only the instance holding the account's fetch claim (Store.claimFetch) connects; the others stand by
 * and try the claim every `pollSeconds`, so when the holder dies one of them takes over.
 *
 * State, for GET /domains: active while the connection is healthy and before it first failed; inactive
 * from a failed connection until one works again. Each change is logged once, with the reason (never a
 * secret: describe-error.ts), and reported to the store, where the instances standing by read it, so
 * every instance behind a load balancer offers the account alike.
 */
import type { ImapFlow } from 'imapflow';
import type { ExtmailAccountConfig, ImapAccountConfig } from '../config/server-config';
import { ServiceError, type ExternalIntake } from '../service/service-types';
import type { FetchClaim, FetchStatus } from '../store/store';
import { describeImapError } from './describe-error';
import { foldersToFetch, newClient } from './imap-connection';
import { syncFolder, type FolderSyncDeps } from './folder-sync';
import { readPassword } from './password';
import { logEvent, type LogLevel } from '../observe/log';

export type FetchedAccount = ExtmailAccountConfig & { imap: ImapAccountConfig };

export interface AccountFetcherDeps {
  intake: ExternalIntake;
  /** 1-based place of the account in the configuration (its id in GET /domains). */
  accountId: number;
  account: FetchedAccount;
  lifetimeMs: number;
  maxMessageBytes: number;
  /** Most aliases of the account looked up per fetched message. */
  maxRecipients: number;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export type AccountState = 'starting' | 'active' | 'inactive' | 'standby';

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 60_000;

/** A failure of the IMAP side, already in words without secrets. */
class ImapFailure extends Error {
  override readonly name = 'ImapFailure';
}

/** Waits `ms` (with ±20% jitter, so instances and accounts do not retry in step). */
function backoffMs(failures: number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(failures - 1, 16));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** The fetcher of one account. */
export class AccountFetcher {
  private current: AccountState = 'starting';
  private reason = '';
  private stopped = false;
  private client: ImapFlow | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private running: Promise<void> | undefined;
  private lastTrouble = '';
  /** What the fetching instance reported, while this one stands by. */
  private shared: FetchStatus | undefined;

  constructor(private readonly deps: AccountFetcherDeps) {}

  private get email(): string {
    return this.deps.account.email;
  }

  private get where(): string {
    return `${this.deps.account.imap.host}:${this.deps.account.imap.port}`;
  }

  /**
   * Listed by GET /domains: not failing (healthy, or not tried yet); standing by, as the instance that
   * fetches it last reported.
   */
  get active(): boolean {
    if (this.current === 'standby') return this.shared?.active ?? true;
    return this.current !== 'inactive';
  }

  get state(): AccountState {
    return this.current;
  }

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.note('error', 'imap.stopped', `fetching stopped: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Stops fetching: ends the connection and waits for the work in hand. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake();
    this.client?.close();
    await this.running;
  }

  private wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** Waits `ms`, or less when woken (new mail, a closed connection, close()). */
  private pause(ms: number): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wakeUp = done;
    });
  }

  private setState(state: AccountState, reason = ''): void {
    if (state === this.current && reason === this.reason) return;
    this.current = state;
    this.reason = reason;
    // Shared with the instances standing by (a failure to write is logged by the service).
    if (state === 'active' || state === 'inactive') this.report(state === 'active', state === 'active' ? '' : reason);
    const { imap } = this.deps.account;
    if (state === 'inactive')
      this.note('warn', 'imap.inactive', `inactive (not offered by GET /domains): ${reason}; retrying with backoff`);
    if (state === 'standby')
      this.note('info', 'imap.standby', 'another instance on the database fetches this account; this one stands by');
    if (state === 'active')
      this.note('info', 'imap.active', `active: fetching ${reason} from ${imap.host}:${imap.port}`);
  }

  /** One line about this account, with its address (and state) as fields. */
  private note(level: LogLevel, event: string, text: string): void {
    logEvent(this.deps.log, {
      level,
      event,
      text: `imap ${this.email}: ${text}`,
      jsonFields: { account: this.email },
      fold: false,
    });
  }

  /** Logs trouble of the store (not of the account) once while it stays the same. */
  private trouble(line: string): void {
    if (line === this.lastTrouble) return;
    this.lastTrouble = line;
    this.note('warn', 'imap.trouble', line);
  }

  private report(active: boolean, reason: string): void {
    this.deps.intake.reportFetchStatus(this.email, { active, reason, at: Date.now() }).catch(() => undefined);
  }

  /** While standing by: what the fetching instance reports, logged when it changes. */
  private async follow(): Promise<void> {
    const status = await this.deps.intake.fetchStatus(this.email).catch(() => undefined);
    if (!status) return;
    const before = this.shared;
    this.shared = status;
    if (before?.active === status.active && before.reason === status.reason) return;
    if (!status.active)
      this.note(
        'warn',
        'imap.inactive',
        `inactive (not offered by GET /domains), as the instance fetching it reports: ${status.reason}`,
      );
    else if (before && !before.active)
      this.note('info', 'imap.active', 'active again, as the instance fetching it reports');
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let claim: FetchClaim | undefined;
      try {
        claim = await this.deps.intake.claimFetch(this.email);
      } catch (error) {
        failures++;
        this.trouble(`cannot claim the account: ${error instanceof Error ? error.message : String(error)}`);
        await this.pause(backoffMs(failures));
        continue;
      }
      if (!claim) {
        this.setState('standby');
        await this.follow();
        await this.pause(this.deps.account.imap.pollSeconds * 1000);
        continue;
      }
      if (this.current === 'standby') {
        this.current = 'starting';
        this.shared = undefined;
      }
      // Not failed yet: the instances standing by offer it until this one says otherwise.
      if (this.current === 'starting') this.report(true, '');
      try {
        failures = await this.hold(claim, failures);
      } finally {
        await claim.release().catch(() => undefined);
      }
    }
  }

  /** Fetches while `claim` holds; returns the count of failures in a row. */
  private async hold(claim: FetchClaim, failuresBefore: number): Promise<number> {
    let failures = failuresBefore;
    let lost = false;
    void claim.lost.then(() => {
      lost = true;
      this.wake();
      this.client?.close();
    });
    while (!this.stopped && !lost) {
      const progress = { healthy: false };
      try {
        await this.session(progress, () => lost);
      } catch (error) {
        if (this.stopped || lost) break;
        const why = error instanceof Error ? error.message : String(error);
        if (error instanceof ServiceError) {
          // The store's trouble, not the account's: the account stays as it was; try again later.
          failures++;
          this.trouble(`storing fetched mail failed: ${why}; trying again`);
        } else if (progress.healthy) {
          // A working connection dropped (a server restart, a network blip): reconnect once at once.
          failures = 0;
          this.note('warn', 'imap.reconnecting', `${why}; reconnecting`);
          continue;
        } else {
          failures++;
          this.setState('inactive', why);
        }
        await this.pause(backoffMs(failures));
      }
    }
    if (lost && !this.stopped)
      this.note(
        'warn',
        'imap.claim_lost',
        'lost the claim on this account (database connection); it is fetched again once the claim is won back',
      );
    return failures;
  }

  /** One connection: connect, then pass over the folders until stopped or the claim is lost. */
  private async session(progress: { healthy: boolean }, lost: () => boolean): Promise<void> {
    const { imap } = this.deps.account;
    let password: string | undefined;
    let client: ImapFlow | undefined;
    let lastError: unknown;
    try {
      password = await readPassword(imap.password, this.deps.env);
      client = newClient(imap, password);
      this.client = client;
      // Without an 'error' listener an error would end the process; it shows as a closed connection.
      client.on('error', (error: unknown) => {
        lastError = error;
        this.wake();
      });
      client.on('close', () => this.wake());
      client.on('exists', () => this.wake());
      this.woken = false;
      await client.connect();
      if (this.stopped || lost()) return;
      const found = await foldersToFetch(client, imap.folders);
      if (!Array.isArray(found)) {
        const has = found.present.map((f) => JSON.stringify(f)).join(', ');
        throw new ImapFailure(
          `the folder ${JSON.stringify(found.missing)} does not exist on ${this.where} (the account has ${has})`,
        );
      }
      const folders = found;
      const idle = client.capabilities.has('IDLE');
      // The first folder is synced last, so it stays selected for IDLE.
      const order = [...folders.slice(1), folders[0] as string];
      const trusted = new Map<string, boolean>();
      const syncDeps: FolderSyncDeps = {
        intake: this.deps.intake,
        accountId: this.deps.accountId,
        account: this.email,
        lifetimeMs: this.deps.lifetimeMs,
        maxMessageBytes: this.deps.maxMessageBytes,
        maxRecipients: this.deps.maxRecipients,
        log: this.deps.log,
      };
      while (!this.stopped && !lost()) {
        this.woken = false;
        for (const folder of order)
          trusted.set(folder, await syncFolder(client, folder, trusted.get(folder) ?? false, syncDeps));
        if (!progress.healthy) {
          progress.healthy = true;
          this.lastTrouble = '';
          const how = idle
            ? `IDLE on ${folders[0]}, every folder checked every ${imap.pollSeconds} s`
            : `no IDLE on this server: checked every ${imap.pollSeconds} s`;
          this.setState('active', `${folders.join(', ')} (${how})`);
        }
        if (this.stopped || lost()) break;
        if (!client.usable)
          throw new ImapFailure(describeImapError(lastError ?? { code: 'NoConnection' }, this.where, password));
        if (idle) void client.idle().catch(() => undefined);
        await this.pause(imap.pollSeconds * 1000);
        if (!client.usable && !this.stopped && !lost())
          throw new ImapFailure(describeImapError(lastError ?? { code: 'NoConnection' }, this.where, password));
      }
    } catch (error) {
      if (error instanceof ServiceError || error instanceof ImapFailure) throw error;
      throw new ImapFailure(describeImapError(error, this.where, password));
    } finally {
      if (client) {
        client.removeAllListeners();
        client.on('error', () => undefined); // a late error of a closed connection must not end the process
        client.close();
        if (this.client === client) this.client = undefined;
      }
    }
  }
}
