/**
 * The Prometheus metrics of `serve --metrics`, with prom-client (the text exposition format, histograms and
 * the process's own metrics, kept by the Prometheus project's community). Loaded only when metrics are on:
 * `serve`'s start-up without them never parses prom-client.
 *
 * Counters follow the Observer's events (it is the MetricsSink); gauges read the Observer's providers when
 * scraped. Every label takes values from a closed set (a route name, a status, a reason of ours), so the
 * number of series stays bounded whatever clients send.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsSink, Observer } from './observer';
import { registerAlertMetrics, type AlertMetricsScope } from './prom-alerts';

export interface PromMetrics {
  contentType: string;
  render(): Promise<string>;
}

/** The counters of the Observer's events, as the sink's calls that count them. */
function eventCounters(registry: Registry): Omit<MetricsSink, keyof ReturnType<typeof registerAlertMetrics>> {
  const stored = new Counter({
    name: 'tempmail_messages_stored_total',
    help: 'Messages stored, by SMTP or fetched over IMAP (one per message, whatever its recipients)',
    registers: [registry],
  });
  const refused = new Counter({
    name: 'tempmail_messages_refused_total',
    help: 'SMTP refusals of a message or a recipient, by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  const connectionsRefused = new Counter({
    name: 'tempmail_smtp_connections_refused_total',
    help: 'SMTP connections answered 421 or closed at once, by reason (limits, storage, PROXY header)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const httpConnectionsRefused = new Counter({
    name: 'tempmail_http_connections_refused_total',
    help: 'HTTP connections answered and closed at once, by reason (per-client, total)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const tls = new Counter({
    name: 'tempmail_tls_handshakes_total',
    help: 'STARTTLS handshakes, by result',
    labelNames: ['result'],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'tempmail_http_requests_total',
    help: 'HTTP requests, by route and status',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tempmail_http_request_duration_seconds',
    help: 'Time from a request to its answer, by route',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: 'tempmail_storage_errors_total',
    help: 'Store operations that failed',
    registers: [registry],
  });

  return {
    messageStored: () => stored.inc(),
    messageRefused: (reason) => refused.inc({ reason }),
    smtpConnectionRefused: (reason) => connectionsRefused.inc({ reason }),
    httpConnectionRefused: (reason) => httpConnectionsRefused.inc({ reason }),
    tlsHandshake: (result) => tls.inc({ result }),
    httpRequest(route, status, seconds) {
      requests.inc({ route, status: String(status) });
      latency.observe({ route }, seconds);
    },
    storageError: () => storageErrors.inc(),
  };
}

/** The gauges of what is open and stored now, read from the Observer's providers when scraped. */
function stateGauges(registry: Registry, observer: Observer): void {
  new Gauge({
    name: 'tempmail_http_connections_open',
    help: 'HTTP connections open now (event streams included)',
    registers: [registry],
    collect() {
      this.set(observer.gauge('httpConnections')?.() ?? 0);
    },
  });
  new Gauge({
    name: 'tempmail_smtp_connections_open',
    help: 'SMTP connections open now',
    registers: [registry],
    collect() {
      this.set(observer.gauge('smtpConnections')?.() ?? 0);
    },
  });
  new Gauge({
    name: 'tempmail_storage_up',
    help: '1 while the storage serves, 0 while it fails',
    registers: [registry],
    collect() {
      this.set(observer.gauge('storageUp')?.() === false ? 0 : 1);
    },
  });
  const storage = () => observer.gauge('storage')?.();
  new Gauge({
    name: 'tempmail_storage_full',
    help: '1 while new mail is refused because the storage cap is reached',
    registers: [registry],
    collect() {
      this.set(storage()?.full ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tempmail_stored_messages',
    help: 'Messages stored, as last measured',
    registers: [registry],
    collect() {
      const n = storage()?.messages;
      if (n !== undefined) this.set(n);
    },
  });
  new Gauge({
    name: 'tempmail_stored_bytes',
    help: 'Bytes stored (a data dir: its message files; a database: its message table on disk), as last measured',
    registers: [registry],
    collect() {
      const n = storage()?.bytes;
      if (n !== undefined) this.set(n);
    },
  });
  new Gauge({
    name: 'tempmail_imap_accounts',
    help: 'External accounts fetched over IMAP, by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of Object.entries(observer.gauge('imapAccounts')?.() ?? {})) this.set({ state }, n);
    },
  });
}

/** The SSH front's sessions, logins and refusals: counted by the front itself, read when scraped. */
function sshMetrics(registry: Registry, observer: Observer): void {
  new Gauge({
    name: 'tempmail_ssh_sessions_open',
    help: 'SSH app sessions open',
    registers: [registry],
    collect() {
      this.set(observer.gauge('ssh')?.().sessionsOpen ?? 0);
    },
  });
  new Counter({
    name: 'tempmail_ssh_logins_total',
    help: 'SSH logins, by kind: key or anonymous',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(observer.gauge('ssh')?.().logins ?? {})) this.inc({ kind }, n);
    },
  });
  new Counter({
    name: 'tempmail_ssh_refused_total',
    help: 'SSH connections and sessions refused, by reason',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(observer.gauge('ssh')?.().refused ?? {}))
        if (n > 0) this.inc({ reason }, n);
    },
  });
}

/** Registers the metrics of `observer` and makes it their sink. */
export function createPromMetrics(observer: Observer, scope: AlertMetricsScope): PromMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tempmail_' });
  const counted = eventCounters(registry);
  stateGauges(registry, observer);
  sshMetrics(registry, observer);
  const sink: MetricsSink = { ...registerAlertMetrics(registry, observer, scope), ...counted };
  observer.sink = sink;
  return { contentType: registry.contentType, render: () => registry.metrics() };
}
