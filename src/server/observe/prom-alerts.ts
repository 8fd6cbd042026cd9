/**
 * The metrics an operator alerts on beside the counts of prom-metrics.ts: how long SMTP deliveries and
 * store operations take, the database pool and the push connection (Postgres), event streams, sessions,
 * reloads, the certificate's expiry, refusals by an admin block, and what is running (build info).
 *
 * Each is there from the first scrape: counters at 0 for every label value they can take (a reload's
 * result, a block's kind), histograms zeroed for each result, gauges read when scraped. The Postgres ones
 * exist only on a database, the certificate's only with STARTTLS: a series that cannot move would be noise.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { VERSION } from '../../platform/version';
import type { MetricsSink, Observer, ReloadResult, TransactionResult } from './observer';

/** What the service runs on: the metrics that only mean something there are registered. */
export interface AlertMetricsScope {
  database: boolean;
  tls: boolean;
}

const TRANSACTION_RESULTS: TransactionResult[] = ['stored', 'refused', 'failed'];
const RELOAD_RESULTS: ReloadResult[] = ['ok', 'refused', 'failed'];
const BLOCK_KINDS = ['ip', 'sender', 'domain'];

type AlertSink = Pick<MetricsSink, 'smtpTransaction' | 'storageQuery' | 'sessionCreated' | 'reload' | 'blocked'>;

/** Registers the metrics to alert on in `registry`; returns the sink methods that move them. */
export function registerAlertMetrics(registry: Registry, observer: Observer, scope: AlertMetricsScope): AlertSink {
  const registers = [registry];
  const transactions = new Histogram({
    name: 'tempmail_smtp_transaction_duration_seconds',
    help: 'Time from the end of DATA to its answer (the message durably stored, or refused), by result',
    labelNames: ['result'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  for (const result of TRANSACTION_RESULTS) transactions.zero({ result });
  const queries = new Histogram({
    name: 'tempmail_storage_query_duration_seconds',
    help: 'Time a store operation took (a data dir: its files; a database: its queries), by operation',
    labelNames: ['op'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const created = new Counter({
    name: 'tempmail_sessions_created_total',
    help: 'Sessions (addresses) created',
    registers,
  });
  new Gauge({
    name: 'tempmail_sessions_active',
    help: 'Sessions stored now (an expired one until the purge removes it)',
    registers,
    async collect() {
      // A store that cannot count keeps the last value: the scrape must not fail with the storage.
      const n = await observer
        .gauge('sessionsActive')?.()
        .catch(() => undefined);
      if (n !== undefined) this.set(n);
    },
  });
  new Gauge({
    name: 'tempmail_event_streams_open',
    help: 'GET /events streams open now',
    registers,
    collect() {
      this.set(observer.gauge('eventStreams')?.() ?? 0);
    },
  });
  const reloads = new Counter({
    name: 'tempmail_reloads_total',
    help: 'Reloads (SIGHUP), by result: ok, refused (the running config kept), failed',
    labelNames: ['result'],
    registers,
  });
  for (const result of RELOAD_RESULTS) reloads.inc({ result }, 0);
  const blocked = new Counter({
    name: 'tempmail_smtp_blocked_total',
    help: 'SMTP connections (an IP block) and senders (at MAIL FROM) refused by an admin block, by its kind',
    labelNames: ['kind'],
    registers,
  });
  for (const kind of BLOCK_KINDS) blocked.inc({ kind }, 0);
  new Gauge({
    name: 'tempmail_build_info',
    help: 'The running version and Node.js (always 1)',
    labelNames: ['version', 'node'],
    registers,
  }).set({ version: VERSION, node: process.version }, 1);
  if (scope.database) registerDatabaseMetrics(registry, observer);
  if (scope.tls) {
    new Gauge({
      name: 'tempmail_tls_certificate_expiry_timestamp_seconds',
      help: 'When the certificate STARTTLS offers expires (Unix time, seconds)',
      registers,
      collect() {
        const notAfter = observer.gauge('tlsNotAfter')?.();
        if (notAfter !== undefined) this.set(Math.floor(notAfter / 1000));
      },
    });
  }
  return {
    smtpTransaction: (result, seconds) => transactions.observe({ result }, seconds),
    storageQuery: (op, seconds) => queries.observe({ op }, seconds),
    sessionCreated: () => created.inc(),
    reload: (result) => reloads.inc({ result }),
    blocked: (kind) => blocked.inc({ kind: BLOCK_KINDS.includes(kind) ? kind : 'other' }),
  };
}

function registerDatabaseMetrics(registry: Registry, observer: Observer): void {
  const registers = [registry];
  const pool = () => observer.gauge('databasePool')?.() ?? { inUse: 0, idle: 0, waiting: 0 };
  new Gauge({
    name: 'tempmail_database_pool_connections',
    help: 'Connections of the database pool, by state: in_use (a query holds it) or idle',
    labelNames: ['state'],
    registers,
    collect() {
      const now = pool();
      this.set({ state: 'in_use' }, now.inUse);
      this.set({ state: 'idle' }, now.idle);
    },
  });
  new Gauge({
    name: 'tempmail_database_pool_waiting',
    help: 'Queries waiting for a connection of the database pool',
    registers,
    collect() {
      this.set(pool().waiting);
    },
  });
  new Gauge({
    name: 'tempmail_push_listen_up',
    help: "1 while the connection that LISTENs for the other instances' mail notices is up",
    registers,
    collect() {
      this.set(observer.gauge('pushUp')?.() ? 1 : 0);
    },
  });
}
