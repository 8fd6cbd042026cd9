/**
 * The metrics to alert on, on the built serve with a Postgres database: the first scrape names each of
 * them, Postgres's own too (the pool's connections in use and idle, queries waiting for one, the push
 * connection that LISTENs for the other instances), and the push connection shows up (1) once it listens.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { newSession } from '../../harness/http';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { ALERT_METRICS, DATABASE_METRICS, sample, scrape, typesOf } from './alert-metrics';

const cleanup = cleanupAfterEach();

describe('the metrics to alert on (Postgres)', () => {
  it('are all in the first scrape, the pool and the push connection too, and move with their events', async () => {
    const { url } = await freshDatabase(cleanup);
    const serve = await startInstance(cleanup, url, ['--metrics']);

    const first = await scrape(serve.baseUrl);
    expect(typesOf(first)).toEqual(expect.arrayContaining([...ALERT_METRICS, ...DATABASE_METRICS]));
    expect(typesOf(first)).not.toContain('tempmail_tls_certificate_expiry_timestamp_seconds gauge');
    expect(sample(first, 'tempmail_database_pool_waiting')).toBeGreaterThanOrEqual(0);
    expect(sample(first, 'tempmail_database_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(first, 'tempmail_database_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(sample(first, 'tempmail_sessions_created_total')).toBe(0);
    expect(sample(first, 'tempmail_reloads_total{result="ok"}')).toBe(0);

    const box = await newSession(serve.baseUrl);
    await sendMail(serve, { to: box.email, subject: 'counted', text: 'x' });
    const after = await waitFor(
      async () => {
        const text = await scrape(serve.baseUrl);
        return sample(text, 'tempmail_push_listen_up') === 1 ? text : undefined;
      },
      { message: 'the push connection listening' },
    );
    expect(sample(after, 'tempmail_sessions_created_total')).toBe(1);
    expect(sample(after, 'tempmail_sessions_active')).toBe(1);
    expect(sample(after, 'tempmail_smtp_transaction_duration_seconds_count{result="stored"}')).toBe(1);
    expect(sample(after, 'tempmail_storage_query_duration_seconds_count{op="deliver"}')).toBe(1);
    // The pool opened connections for those queries; they are idle again once answered.
    expect(sample(after, 'tempmail_database_pool_connections{state="idle"}')).toBeGreaterThan(0);
  });
});
