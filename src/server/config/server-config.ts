/** Settings of the reference service, with their defaults (docs/server/README.md, Limits). */
import { appPaths } from '../../state/paths';

export interface ExtmailAccountConfig {
  email: string;
  /** Provider ignores dots in the local part (gmail-like): dot variants are offered as aliases. */
  dotInsensitive: boolean;
  /** Where the service fetches the account's mail (src/server/imap/); absent: mail arrives by SMTP only. */
  imap?: ImapAccountConfig;
}

/** How the IMAP connection is secured: TLS from the start, STARTTLS (required), or none (loopback only). */
export type ImapTls = 'tls' | 'starttls' | 'none';

/** Where an IMAP password is read from at each connection: never the password itself. */
export type PasswordSource = { env: string } | { file: string };

export interface ImapAccountConfig {
  host: string;
  port: number;
  tls: ImapTls;
  user: string;
  password: PasswordSource;
  /** Folders to fetch; undefined: INBOX and the folder the server marks \Junk. */
  folders?: string[];
  /** How often folders are checked without IDLE (the idled folder also wakes on new mail), seconds. */
  pollSeconds: number;
}

export interface ServerConfig {
  /** Listen address of both listeners, unless httpHost or smtpHost says otherwise. */
  host: string;
  /** Listen address of HTTP (e.g. loopback behind a reverse proxy); default `host`. */
  httpHost?: string;
  /** Listen address of SMTP (e.g. every interface, for port 25); default `host`. */
  smtpHost?: string;
  /**
   * Behind a reverse proxy on this machine: for a request that comes from a loopback address, the client
   * is the last address of X-Forwarded-For (what the proxy appended), for the per-client rate limit.
   */
  trustProxy?: boolean;
  /** 0 = any free port. */
  httpPort: number;
  /** 0 = any free port. */
  smtpPort: number;
  dataDir: string;
  /**
   * postgres:// URL of a database to keep everything in instead of dataDir: any number of services may
   * share it. Undefined: the file store under dataDir. May carry a password: never log or show it as is.
   */
  databaseUrl?: string;
  /** Most database connections this service holds (with databaseUrl). */
  databasePoolSize: number;
  domains: string[];
  extmailAccounts: ExtmailAccountConfig[];
  /** Session lifetime in seconds (the CLI takes minutes; tests use seconds). */
  lifetimeSeconds: number;
  maxMessageBytes: number;
  maxRecipients: number;
  inboxLimit: number;
  /**
   * Accept mail for any address at our domains, making its inbox on its first message (as mailpit and
   * MailHog do): the app's local mode sets it; `serve` has no flag for it.
   */
  catchAll?: boolean;
  /** create-session calls allowed per client address per minute. */
  createPerMinute: number;
  /** Load balancers whose X-Forwarded-For names the client (for the create-session rate), and whose PROXY protocol header names the SMTP sender. */
  trustedProxies: string[];
  /** How often expired sessions are purged, in ms. */
  purgeIntervalMs: number;
  /** SMTP socket idle timeout in ms. */
  smtpSocketTimeoutMs: number;
  /** Longest an SMTP connection may last, however busy, in ms (421 4.4.2 past it). */
  smtpSessionTimeoutMs: number;
  /** Longest one message's DATA may take, from 354 to the final dot, in ms (421 4.4.2 past it). */
  smtpDataTimeoutMs: number;
  /**
   * Bytes that the messages being received or stored at once may hold together (451 4.3.1 past it);
   * never less than maxMessageBytes in effect.
   */
  smtpInflightBytes: number;
  /** PEM certificate (chain) offered through STARTTLS; with tlsKeyFile, or neither (then no STARTTLS). */
  tlsCertFile?: string;
  /** PEM private key of tlsCertFile. */
  tlsKeyFile?: string;
  /** An HTTP request's headers must arrive within this (ms), else 408. */
  httpHeadersTimeoutMs: number;
  /** A whole HTTP request (headers and body) must arrive within this (ms), else 408. At least the headers' time. */
  httpRequestTimeoutMs: number;

  // Limits per client and on the whole (src/server/limits/; docs/server/operations.md).
  /** Most SMTP connections at once (421 past it). */
  smtpMaxConnections: number;
  /** Most SMTP connections at once from one client; undefined: a tenth of smtpMaxConnections; 0: none of its own. */
  smtpConnectionsPerClient?: number;
  /** SMTP transactions (MAIL FROM) per client per minute; 0 = no limit. */
  smtpMessagesPerMinute: number;
  /** SMTP recipients (RCPT TO) per client per minute; 0 = no limit. */
  smtpRecipientsPerMinute: number;
  /** HTTP requests per client per minute (every route); 0 = no limit. */
  httpRequestsPerMinute: number;
  /** Most HTTP connections at once (GET /events streams included); more are answered 503 and closed. */
  httpMaxConnections: number;
  /**
   * Most HTTP connections at once from one client (not a trusted proxy, 127.0.0.1 or ::1); undefined: a
   * tenth of httpMaxConnections; 0: none of its own.
   */
  httpConnectionsPerClient?: number;
  /** Messages stored in all before new mail is refused (452 4.3.1); 0 = no cap. */
  maxStoredMessages: number;
  /** Bytes of message files in the data dir before new mail is refused; 0 = no cap (data dir only). */
  maxStoredBytes: number;
  /** How often the stored messages and bytes are measured (with a cap, or metrics), ms. */
  storageUsageIntervalMs: number;

  // What the service says about itself (src/server/observe/).
  /** Serve GET /metrics (Prometheus text). */
  metrics: boolean;
  /** Serve /metrics on this address instead of the HTTP port (implies metrics). */
  metricsListen?: { host: string; port: number };
  /** Log lines as text (default) or one JSON object a line. */
  logFormat: 'text' | 'json';

  // Push and abuse handling (src/server/http/events.ts, src/server/admin/; docs/server/operations.md).
  /** GET /events streams one session may hold open at once (more: 429). */
  eventStreamsPerSession: number;
  /** GET /events streams open at once in all (more: 503). */
  eventStreamsTotal: number;
  /** GET /events streams one client may hold open at once (more: 429); undefined: a tenth of the total; 0: none of its own. */
  eventStreamsPerClient?: number;
  /** A keep-alive comment on each event stream this often (ms). */
  eventsHeartbeatMs: number;
  /** A file holding the admin API's token; undefined: no admin API (src/server/admin/). */
  adminTokenFile?: string;
  /** Named admin tokens, each in a file (config `adminTokens`): the log names who acted. */
  adminTokens?: { name: string; file: string }[];
  /** Serve the admin API on this address only (then /admin/ is 404 on the HTTP port); undefined: on the HTTP port. */
  adminListen?: { host: string; port: number };
  /** SSH front (src/server/ssh/; docs/server/ssh.md): its port; undefined = no SSH (the default). 0 = any free port. */
  sshPort?: number;
  /** Listen address of SSH; default `host`. */
  sshHost?: string;
  /** The host key's file (OpenSSH format); undefined = made on first start and kept with the data. */
  sshHostKeyFile?: string;
  /** SSH connections at once, in all (default 100) and from one client address (default 10). */
  sshMaxConnections?: number;
  sshConnectionsPerClient?: number;
  /** App sessions one key may hold open at once (default 5). */
  sshSessionsPerKey?: number;
  /** A session with no key pressed this long is closed (ms; default 30 minutes). */
  sshIdleTimeoutMs?: number;
  /** The key exchange must be done this soon after connecting (ms; default 10 s). */
  sshHandshakeTimeoutMs?: number;
  /** Authentication must be done this soon after the key exchange (ms; default 20 s). */
  sshAuthTimeoutMs?: number;
}

/** A client's share where the configuration names none: a tenth of the total, at least 1. */
const tenthOf = (total: number): number => Math.max(1, Math.floor(total / 10));

/** The per-client HTTP connection limit in force: the configured one, or a tenth of the total. */
export function httpConnectionsPerClient(
  config: Pick<ServerConfig, 'httpMaxConnections' | 'httpConnectionsPerClient'>,
): number {
  return config.httpConnectionsPerClient ?? tenthOf(config.httpMaxConnections);
}

/** The per-client SMTP connection limit in force: the configured one, or a tenth of the total. */
export function connectionsPerClient(
  config: Pick<ServerConfig, 'smtpMaxConnections' | 'smtpConnectionsPerClient'>,
): number {
  return config.smtpConnectionsPerClient ?? tenthOf(config.smtpMaxConnections);
}

/** The per-client bound on GET /events streams in force: the configured one, or a tenth of the total. */
export function eventStreamsPerClient(
  config: Pick<ServerConfig, 'eventStreamsTotal' | 'eventStreamsPerClient'>,
): number {
  return config.eventStreamsPerClient ?? tenthOf(config.eventStreamsTotal);
}

export function defaultServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    host: '127.0.0.1',
    httpPort: 8025,
    smtpPort: 2525,
    dataDir: appPaths(env).data,
    databasePoolSize: 10,
    domains: ['tempmail.test', 'inbox.test'],
    extmailAccounts: [],
    lifetimeSeconds: 60 * 60,
    maxMessageBytes: 10 * 1024 * 1024,
    maxRecipients: 50,
    inboxLimit: 500,
    createPerMinute: 30,
    trustedProxies: [],
    purgeIntervalMs: 60_000,
    smtpSocketTimeoutMs: 60_000,
    // 10 MiB in 5 min is 35 KB/s: any real sender does far better; a trickle holds a slot 10 min at most.
    smtpSessionTimeoutMs: 600_000,
    smtpDataTimeoutMs: 300_000,
    // Three messages of the default size limit at once, or hundreds of ordinary ones. Each costs several
    // times its size while it is parsed and stored (a burst's peak: docs/performance.md).
    smtpInflightBytes: 32 * 1024 * 1024,
    httpHeadersTimeoutMs: 15_000,
    httpRequestTimeoutMs: 30_000,
    smtpMaxConnections: 200,
    // A busy sending host (a big provider's outbound relay) sends a few messages a second to one
    // receiver at most; a flood from one address is refused long before it matters to anyone else.
    smtpMessagesPerMinute: 300,
    smtpRecipientsPerMinute: 1000,
    // The app checks an inbox every few seconds; 20 requests a second leave room for many inboxes behind
    // one address (a NAT), and a reverse proxy is seen through with --trust-proxy.
    httpRequestsPerMinute: 1200,
    // Each holds a file descriptor, as SMTP's and the data dir's do: see docs/server/operations.md.
    httpMaxConnections: 1000,
    maxStoredMessages: 0,
    maxStoredBytes: 0,
    storageUsageIntervalMs: 30_000,
    metrics: false,
    logFormat: 'text',
    eventStreamsPerSession: 4,
    // Each stream holds a socket: well under the 1024 file descriptors a process commonly gets.
    eventStreamsTotal: 500,
    // Under the 60 s of idle that proxies (nginx's proxy_read_timeout) commonly allow.
    eventsHeartbeatMs: 25_000,
  };
}

/** Injected so tests can move time without sleeping. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();
