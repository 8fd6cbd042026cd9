/**
 * Running a public instance: the per-client limits and the storage cap (src/server/limits/), the storage
 * health, the counters, the metrics and the log (src/server/observe/), put together for one service and
 * handed to its front ends as hooks. assemble.ts builds it; the front ends only see the hooks.
 *
 * `Operations` is also what the rest of a running service may read and change: `stats()` (an admin API)
 * and `limits()` / `updateLimits()` (a reload of the configuration).
 */
import { ClientLimits, ratesOf, type RateLimits } from '../limits/client-limits';
import { ConnectionLimit, type ConnectionRules } from '../limits/connection-limit';
import { StorageCap, type StorageCaps } from '../limits/storage-cap';
import type { HttpHooks } from '../http/http-server';
import type { Logger } from '../observe/log';
import { Observer, type OpsStats } from '../observe/observer';
import { METRICS_PATH, startMetricsServer, type MetricsServer } from '../observe/metrics-server';
import { StorageHealth } from '../observe/storage-health';
import { connectionsPerClient, httpConnectionsPerClient, type Clock, type ServerConfig } from '../config/server-config';
import type { SmtpHooks, SmtpRefusal } from '../smtp/smtp-hooks';
import type { Store } from '../store/store';

/** Every limit of the service, as a reload may set them. */
export interface OperationalLimits {
  rates: RateLimits;
  connections: ConnectionRules;
  httpConnections: ConnectionRules;
  storage: StorageCaps;
}

export interface Operations {
  readonly log: Logger;
  readonly observer: Observer;
  readonly health: StorageHealth;
  readonly clientLimits: ClientLimits;
  readonly smtpHooks: SmtpHooks;
  readonly httpHooks: HttpHooks;
  /** The counters and gauges now (an admin API's "stats"). */
  stats(): OpsStats;
  limits(): OperationalLimits;
  /** New limits (a reload): in force for the next connection, message, recipient or request. */
  updateLimits(limits: {
    rates?: Partial<RateLimits>;
    connections?: Partial<ConnectionRules>;
    httpConnections?: Partial<ConnectionRules>;
    storage?: Partial<StorageCaps>;
  }): void;
  /** Whether the storage cap is reached (new mail is refused). */
  storageFull(): boolean;
  /** Mail was deleted (room may be there before the next measure). */
  freed(): void;
  /** A message was stored for `copies` sessions (the mail service's onStored): counted, and added to the cap's measure. */
  stored(copies: number, bytes: number): void;
  /** The address of the separate metrics listener, when there is one. */
  metricsUrl?: string;
  /** Starts the background probes and measures (once the service is up). */
  start(): void;
  close(): Promise<void>;
}

export interface OperationsDeps {
  config: ServerConfig;
  store: Store;
  log: Logger;
  clock: Clock;
  /** The store answers probe() with one cheap round trip (a database): probed while healthy too. */
  probesCheaply: boolean;
}

const refusal = (code: number, text: string, reason: string): SmtpRefusal => ({ code, text, reason });

/** Every limit a configuration sets: at start, and again at each reload (Operations.updateLimits). */
export function limitsOf(config: ServerConfig): OperationalLimits {
  return {
    rates: ratesOf(config),
    connections: { total: config.smtpMaxConnections, perClient: connectionsPerClient(config) },
    httpConnections: { total: config.httpMaxConnections, perClient: httpConnectionsPerClient(config) },
    storage: { maxMessages: config.maxStoredMessages, maxBytes: config.maxStoredBytes },
  };
}

/** What the fronts' hooks act on. */
interface HookParts {
  observer: Observer;
  log: Logger;
  health: StorageHealth;
  cap: StorageCap;
  clientLimits: ClientLimits;
  connections: ConnectionLimit;
  httpConnections: ConnectionLimit;
  /** The store keeps the storage totals itself (PostgreSQL: the cap is decided in the database). */
  keepsUsage: boolean;
  /** A per-client rate: 0, or the seconds to wait. */
  rate: (kind: 'http' | 'smtp-message' | 'smtp-recipient', client: string) => Promise<number>;
  /** Logs a connection refused for its client's share. */
  perClientRefused: (limit: ConnectionLimit, front: 'smtp' | 'http', client: string, said: string) => void;
}

/** The answer to a transaction that would pass the storage cap. */
const storageFull = () => refusal(452, '4.3.1 Insufficient system storage, try again later', 'storage_full');

/** The SMTP front's hooks: connections counted, storage and rates asked, refusals logged and counted. */
function smtpHooksOf(p: HookParts): SmtpHooks {
  const { connections, observer, log, health, cap, rate, clientLimits, perClientRefused } = p;
  /** Undefined while `client` is within its per-minute `key` limit, else 451 saying the limit and the wait. */
  const perMinute = async (
    key: 'smtp-message' | 'smtp-recipient',
    client: string,
    noun: string,
    reason: 'rate_limit_messages' | 'rate_limit_recipients',
  ) => {
    const wait = await rate(key, client);
    if (wait === 0) return undefined;
    const limit = clientLimits.limits()[key];
    return refusal(
      451,
      `4.7.1 Too many ${noun} from your address (at most ${limit} a minute), try again in ${wait} s`,
      reason,
    );
  };
  return {
    connect(peer) {
      const verdict = connections.admit(peer.id, peer.client);
      if (verdict.ok) {
        observer.smtpConnectionAccepted();
        return undefined;
      }
      observer.smtpConnectionRefused(verdict.reason);
      if (verdict.reason === 'total') {
        const text = `4.3.2 Too many connected clients (${verdict.limit}), try again in a moment`;
        log.event({
          level: 'warn',
          event: 'smtp.connection_refused',
          text: `smtp refused a connection from ${peer.client}: 421 ${text}`,
          fields: { client: peer.client, reason: 'total' },
        });
        return refusal(421, text, 'total');
      }
      const text = `4.7.0 Too many connections from your address (at most ${verdict.limit} at once), try again later`;
      perClientRefused(connections, 'smtp', peer.client, `421 ${text}`);
      return refusal(421, text, 'per-client');
    },
    closed: (peer) => connections.closed(peer.id),
    proxyRefused: (_client, reason) => observer.smtpConnectionRefused(reason),
    greet(peer) {
      if (health.ok()) return undefined;
      observer.smtpConnectionRefused('storage_unavailable');
      const text = '4.3.0 Mail storage is unavailable, try again later';
      log.event({
        level: 'warn',
        event: 'smtp.refused',
        text: `smtp refused EHLO from ${peer.client}: 421 ${text}`,
        fields: { client: peer.client, tls: peer.tls, reason: 'storage_unavailable' },
      });
      return refusal(421, text, 'storage_unavailable');
    },
    async mailFrom(peer) {
      if (!(await cap.roomFor(1, 0))) return storageFull();
      return perMinute('smtp-message', peer.client, 'messages', 'rate_limit_messages');
    },
    async rcpt(peer, _recipient, earlier, size) {
      // Past the cap with this recipient's copy (the transaction's earlier ones counted): 452 for it.
      if (!(await cap.roomFor(earlier + 1, size))) return storageFull();
      return perMinute('smtp-recipient', peer.client, 'recipients', 'rate_limit_recipients');
    },
    async hold(_peer, copies, bytes) {
      const release = await cap.hold(copies, bytes);
      return release ?? refusal(452, '4.3.1 Insufficient system storage, try again later', 'storage_full');
    },
    tls(peer, ok, reason) {
      observer.tlsHandshake(ok ? 'ok' : 'failed');
      if (ok) return;
      log.event({
        level: 'warn',
        event: 'smtp.tls_failed',
        text: `smtp TLS handshake with ${peer.client} failed: ${reason ?? 'unknown reason'}`,
        fields: { client: peer.client, reason },
      });
    },
    refused(_peer, reason) {
      observer.messageRefused(reason);
      // A store that keeps the cap itself may have refused for another instance's mail: measured again
      // (one cheap read), so the next MAIL FROM and RCPT here hear it before DATA.
      if (reason === 'storage_full' && p.keepsUsage) void cap.measure();
    },
    transaction: (_peer, result, ms) => observer.smtpTransaction(result, ms),
  };
}

/** The HTTP front's hooks: connections counted, rates asked, refusals logged and counted. */
function httpHooksOf(p: HookParts): HttpHooks {
  const { httpConnections, observer, log, rate, perClientRefused } = p;
  return {
    admit: (client) => rate('http', client),
    answered: (route, status, ms) => observer.httpRequest(route, status, ms),
    connect(id, peer, proxy) {
      const verdict = httpConnections.admit(id, peer, !proxy);
      if (verdict.ok) return undefined;
      observer.httpConnectionRefused(verdict.reason);
      if (verdict.reason === 'total') {
        log.event({
          level: 'warn',
          event: 'http.connection_refused',
          text: `http refused a connection from ${peer}: 503 (${verdict.limit} connections open in all)`,
          fields: { client: peer, reason: 'total' },
        });
        return { status: 503, message: 'The service holds as many connections as it can; try again in a moment' };
      }
      perClientRefused(httpConnections, 'http', peer, `429 (at most ${verdict.limit} at once from one client)`);
      return { status: 429, message: `Too many connections from your address (at most ${verdict.limit} at once)` };
    },
    closed: (id) => httpConnections.closed(id),
  };
}

/** A per-client rate: 0, or the seconds to wait; a store that cannot count lets the client through. */
function rateAsker(clientLimits: ClientLimits, log: Logger): HookParts['rate'] {
  return (kind, client) =>
    clientLimits.hit(kind, client).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      log.event({
        level: 'warn',
        event: 'limits.check_failed',
        text: `a per-client limit could not be counted (let through): ${why}`,
        fields: { reason: why },
      });
      return 0;
    });
}

/** A connection refused for its client's share: one line a minute per client, with the count since. */
function logPerClientRefusal(
  log: Logger,
  limit: ConnectionLimit,
  front: 'smtp' | 'http',
  client: string,
  said: string,
): void {
  const before = limit.shouldLog(client);
  if (before === undefined) return;
  const more = before > 0 ? ` (${before} more refused since the last line about it)` : '';
  log.event({
    level: 'warn',
    event: `${front}.connection_refused`,
    text: `${front} refused a connection from ${client}: ${said}${more}`,
    fields: { client, reason: 'per-client' },
    fold: false,
  });
}

/**
 * With --metrics: the Prometheus metrics, on their own listener (metricsListen, returned) or as GET
 * /metrics of the HTTP front. prom-client is loaded here only: without --metrics, serve never parses it.
 */
async function startMetrics(
  config: ServerConfig,
  observer: Observer,
  httpHooks: HttpHooks,
): Promise<MetricsServer | undefined> {
  if (!config.metrics) return undefined;
  const { createPromMetrics } = await import('../observe/prom-metrics');
  const metrics = createPromMetrics(observer, {
    database: config.databaseUrl !== undefined,
    tls: config.tlsCertFile !== undefined && config.tlsKeyFile !== undefined,
  });
  const render = async () => ({ contentType: metrics.contentType, body: await metrics.render() });
  if (config.metricsListen) {
    return startMetricsServer(config.metricsListen, render, {
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      requestTimeoutMs: config.httpRequestTimeoutMs,
    });
  }
  httpHooks.plain = { [METRICS_PATH]: render };
  return undefined;
}

/** Builds the operations of a service on `store`; loads prom-client only with metrics on. */
export async function createOperations({
  config,
  store,
  log,
  clock,
  probesCheaply,
}: OperationsDeps): Promise<Operations> {
  const observer = new Observer(log);
  const health = new StorageHealth({
    probe: () => store.probe(),
    log,
    onError: () => observer.storageError(),
    intervalMs: probesCheaply ? 5000 : 0,
  });
  const limits = limitsOf(config);
  const clientLimits = new ClientLimits(store, limits.rates, clock);
  const connections = new ConnectionLimit(limits.connections, clock);
  const httpConnections = new ConnectionLimit(limits.httpConnections, clock);
  const cap = new StorageCap({
    measure: (recount) => store.usage(recount),
    cheap: store.keepsUsage === true,
    caps: limits.storage,
    alwaysMeasure: config.metrics,
    intervalMs: config.storageUsageIntervalMs,
    log,
  });
  observer.provide('smtpConnections', () => connections.size);
  observer.provide('httpConnections', () => httpConnections.size);
  observer.provide('storageUp', () => health.ok());
  observer.provide('storage', () => cap.gauge());

  const parts: HookParts = {
    observer,
    log,
    health,
    cap,
    clientLimits,
    connections,
    httpConnections,
    keepsUsage: store.keepsUsage === true,
    rate: rateAsker(clientLimits, log),
    perClientRefused: (limit, front, client, said) => logPerClientRefusal(log, limit, front, client, said),
  };
  const smtpHooks = smtpHooksOf(parts);
  const httpHooks = httpHooksOf(parts);

  const metricsServer = await startMetrics(config, observer, httpHooks);

  return {
    log,
    observer,
    health,
    clientLimits,
    smtpHooks,
    httpHooks,
    metricsUrl: metricsServer?.url,
    stats: () => observer.stats(),
    storageFull: () => cap.full(),
    freed: () => cap.freed(),
    stored(copies, bytes) {
      observer.messageStored();
      cap.stored(copies, bytes);
    },
    limits: () => ({
      rates: clientLimits.limits(),
      connections: connections.limits(),
      httpConnections: httpConnections.limits(),
      storage: cap.limits(),
    }),
    updateLimits(limits) {
      if (limits.rates) clientLimits.update(limits.rates);
      if (limits.connections) connections.update(limits.connections);
      if (limits.httpConnections) httpConnections.update(limits.httpConnections);
      if (limits.storage) cap.update(limits.storage);
    },
    start() {
      health.start();
      cap.start();
    },
    async close() {
      health.stop();
      cap.stop();
      await metricsServer?.close();
      log.flush();
    },
  };
}
