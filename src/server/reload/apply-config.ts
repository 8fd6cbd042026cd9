/**
 * A running serve takes a new configuration (SIGHUP reads the config file again: sighup.ts): the one
 * entry point is applyConfig(), which checks everything it must read first (the certificate, the admin
 * token) and only then puts the new settings in effect, all of them or none. What the front ends read
 * at each use (domains, accounts, lifetime, inbox limit, create rate, message size and recipients) is
 * changed in place in the live config; what they keep (SMTP time limits and budget, HTTP timeouts, the
 * event streams' bounds, the purge timer, IMAP fetchers) is handed over by the parts' own hooks.
 *
 * Settings that a running process cannot change (where it listens, where its data is, who is trusted
 * as a proxy, STARTTLS on or off) are named in the report as needing a restart; their running values
 * stay. To add a setting: give it a line in LIVE_KEYS (and a hook in LiveParts if a part keeps it), or
 * in RESTART_KEYS.
 */
import type { ServerConfig } from '../config/server-config';
import { adminTokenFiles, type NamedToken, type NamedTokenFile } from '../admin/admin-api';

/** What a running serve can change without a restart, and how to show a value of each in the log. */
export const LIVE_KEYS = [
  'domains',
  'extmailAccounts',
  'lifetimeSeconds',
  'maxMessageBytes',
  'maxRecipients',
  'inboxLimit',
  'createPerMinute',
  'smtpMaxConnections',
  'smtpConnectionsPerClient',
  'smtpMessagesPerMinute',
  'smtpRecipientsPerMinute',
  'httpRequestsPerMinute',
  'httpMaxConnections',
  'httpConnectionsPerClient',
  'maxStoredMessages',
  'maxStoredBytes',
  'purgeIntervalMs',
  'smtpSocketTimeoutMs',
  'smtpSessionTimeoutMs',
  'smtpDataTimeoutMs',
  'smtpInflightBytes',
  'httpHeadersTimeoutMs',
  'httpRequestTimeoutMs',
  'eventStreamsPerSession',
  'eventStreamsTotal',
  'eventStreamsPerClient',
  'eventsHeartbeatMs',
  'tlsCertFile',
  'tlsKeyFile',
  'adminTokenFile',
  'adminTokens',
] as const satisfies readonly (keyof ServerConfig)[];

/** What only a restart changes: the running value stays. */
export const RESTART_KEYS = [
  'host',
  'httpHost',
  'smtpHost',
  'httpPort',
  'smtpPort',
  'dataDir',
  'databaseUrl',
  'databasePoolSize',
  'trustProxy',
  'trustedProxies',
  'storageUsageIntervalMs',
  'metrics',
  'metricsListen',
  'adminListen',
  'logFormat',
  // The SSH front's listener, host key and limits are read when it starts.
  'sshPort',
  'sshHost',
  'sshHostKeyFile',
  'sshMaxConnections',
  'sshConnectionsPerClient',
  'sshSessionsPerKey',
  'sshIdleTimeoutMs',
  'sshHandshakeTimeoutMs',
  'sshAuthTimeoutMs',
] as const satisfies readonly (keyof ServerConfig)[];

type LiveKey = (typeof LIVE_KEYS)[number];

/** What the parts of a running serve do with a new configuration (assemble.ts gives them). */
export interface LiveParts {
  /** The configuration every part reads; changed in place. */
  config: ServerConfig;
  /** Reads and checks the certificate and key of `files`; rejects (nothing changed) when they do not check out. */
  loadTls(files: { certFile: string; keyFile: string }): Promise<{ summary: string; put(): void }>;
  /** Reads and checks the admin token files; rejects when one does not check out. */
  readAdminTokens(files: NamedTokenFile[]): Promise<NamedToken[]>;
  /** Puts the admin tokens in effect, or turns the admin API off (none). */
  setAdminTokens(tokens: NamedToken[]): void;
  /** The parts that keep a copy of what they read at start (the limits too: Operations.updateLimits) take the live config again. */
  takeLimits(): void;
  /** Starts the IMAP fetchers again for the accounts now configured. */
  restartImap(): Promise<void>;
}

/** What applyConfig did, for the log. */
export interface ReloadReport {
  /** "inboxLimit 500 -> 100", one line per setting changed. */
  changed: string[];
  /** Settings the file changed that take a restart (their running values stay). */
  restart: string[];
  /** The certificate STARTTLS offers now (when TLS is on). */
  tls?: string;
}

/** A new configuration refused as a whole (the running one stays); `part` says what failed. */
export class ReloadError extends Error {
  override readonly name = 'ReloadError';
  constructor(
    readonly part: 'certificate' | 'admin token',
    message: string,
  ) {
    super(message);
  }
}

/** A value as the log shows it: accounts by address (never where their passwords come from). */
function shown(key: keyof ServerConfig, value: unknown): string {
  if (value === undefined) return '(none)';
  if (key === 'adminTokens') return (value as { name: string }[]).map((t) => t.name).join(', ') || '(none)';
  if (key === 'extmailAccounts')
    return (
      (value as ServerConfig['extmailAccounts']).map((a) => `${a.email}${a.imap ? ' (imap)' : ''}`).join(', ') ||
      '(none)'
    );
  if (Array.isArray(value)) return value.join(', ') || '(none)';
  return String(value);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Puts `next` in effect on a running serve: all of it (but what takes a restart), or nothing. */
export async function applyConfig(parts: LiveParts, next: ServerConfig): Promise<ReloadReport> {
  const live = parts.config;
  const restart: string[] = RESTART_KEYS.filter((k) => !same(live[k], next[k]));
  const tlsWas = live.tlsCertFile !== undefined;
  const tlsNow = next.tlsCertFile !== undefined && next.tlsKeyFile !== undefined;
  if (tlsWas !== tlsNow)
    restart.push(
      tlsNow
        ? 'tlsCert and tlsKey (STARTTLS is off until a restart)'
        : 'tlsCert and tlsKey (STARTTLS stays on until a restart)',
    );
  const changed = LIVE_KEYS.filter(
    (k) => !same(live[k], next[k]) && !((k === 'tlsCertFile' || k === 'tlsKeyFile') && tlsWas !== tlsNow),
  );

  // Read and checked before anything changes: a certificate or token that does not check out keeps it all.
  let tls: Awaited<ReturnType<LiveParts['loadTls']>> | undefined;
  if (tlsWas && tlsNow) {
    try {
      tls = await parts.loadTls({ certFile: next.tlsCertFile!, keyFile: next.tlsKeyFile! });
    } catch (error) {
      throw new ReloadError('certificate', error instanceof Error ? error.message : String(error));
    }
  }
  let adminTokens: NamedToken[];
  try {
    adminTokens = await parts.readAdminTokens(adminTokenFiles(next));
  } catch (error) {
    throw new ReloadError('admin token', error instanceof Error ? error.message : String(error));
  }

  const lines = changed.map((k) => `${k} ${shown(k, live[k])} -> ${shown(k, next[k])}`);
  // The fetchers keep the accounts, the lifetime and the size limit they were started with.
  const fetching = [...live.extmailAccounts, ...next.extmailAccounts].some((a) => a.imap);
  const accountsChanged =
    fetching && changed.some((k) => k === 'extmailAccounts' || k === 'lifetimeSeconds' || k === 'maxMessageBytes');
  for (const k of changed satisfies LiveKey[]) (live as unknown as Record<string, unknown>)[k] = next[k];
  tls?.put();
  parts.setAdminTokens(adminTokens);
  parts.takeLimits();
  if (accountsChanged) await parts.restartImap();
  return { changed: lines, restart, ...(tls ? { tls: tls.summary } : {}) };
}
