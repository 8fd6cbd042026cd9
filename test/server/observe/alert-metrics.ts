/**
 * The metrics to alert on (src/server/observe/prom-alerts.ts) as a scrape of the built serve shows them,
 * shared by alert-metrics.test.ts (a data dir) and alert-metrics.pg.test.ts (Postgres).
 */
import { call } from '../../harness/http';

/** Every metric each fresh serve names in its first scrape. */
export const ALERT_METRICS = [
  'tempmail_smtp_transaction_duration_seconds histogram',
  'tempmail_storage_query_duration_seconds histogram',
  'tempmail_sessions_created_total counter',
  'tempmail_sessions_active gauge',
  'tempmail_event_streams_open gauge',
  'tempmail_reloads_total counter',
  'tempmail_smtp_blocked_total counter',
  'tempmail_build_info gauge',
];

/** The metrics only a database has. */
export const DATABASE_METRICS = [
  'tempmail_database_pool_connections gauge',
  'tempmail_database_pool_waiting gauge',
  'tempmail_push_listen_up gauge',
];

/** The `# TYPE name type` lines of a scrape, as "name type". */
export function typesOf(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
}

/** The value of one sample line (`name{labels} value`), undefined when there is none. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** GET /metrics of the HTTP port, as text. */
export async function scrape(baseUrl: string): Promise<string> {
  const res = await call(baseUrl, '/metrics');
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.bytes.toString('utf8');
}
