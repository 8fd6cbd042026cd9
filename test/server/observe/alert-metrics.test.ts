/**
 * The metrics an operator alerts on, on the built serve with a data dir (`--metrics`, STARTTLS, an admin
 * token): the first scrape names each of them with its counters at 0, and each moves when its event
 * happens: a session created, an event stream opened, an SMTP transaction, a reload (and a refused one),
 * an IP block.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { makeCa, makeServerCert } from '../../harness/tls-certs';
import { waitFor } from '../../harness/wait';
import { ALERT_METRICS, DATABASE_METRICS, sample, scrape, typesOf } from './alert-metrics';

const cleanup = cleanupAfterEach();
const TOKEN = 'metrics-admin-token-0123456789abcdef';
const HOST = 'mail.tempmail.test';

describe('the metrics to alert on (a data dir)', () => {
  it('are all in the first scrape, at 0, and each moves with its event', async () => {
    const dir = await cleanup.tempDir('tempmail-alert-metrics-');
    const tokenFile = join(dir, 'admin.token');
    await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const ca = makeCa(dir);
    const cert = makeServerCert(ca, 'server', HOST);
    const args = [
      '--data-dir',
      join(dir, 'data'),
      '--metrics',
      '--admin-token-file',
      tokenFile,
      '--tls-cert',
      cert.cert,
      '--tls-key',
      cert.key,
    ];
    const serve = cleanup.defer(await startServeProcess(args), (p) => stopServe(p, 'SIGKILL'));

    const first = await scrape(serve.baseUrl);
    expect(typesOf(first)).toEqual(
      expect.arrayContaining([...ALERT_METRICS, 'tempmail_tls_certificate_expiry_timestamp_seconds gauge']),
    );
    // Postgres's own are not there on a data dir: a series that cannot move would be noise.
    for (const metric of DATABASE_METRICS) expect(typesOf(first)).not.toContain(metric);
    for (const result of ['ok', 'refused', 'failed'])
      expect(sample(first, `tempmail_reloads_total{result="${result}"}`)).toBe(0);
    for (const kind of ['ip', 'sender', 'domain'])
      expect(sample(first, `tempmail_smtp_blocked_total{kind="${kind}"}`)).toBe(0);
    expect(sample(first, 'tempmail_smtp_transaction_duration_seconds_count{result="stored"}')).toBe(0);
    expect(sample(first, 'tempmail_sessions_created_total')).toBe(0);
    expect(sample(first, 'tempmail_sessions_active')).toBe(0);
    expect(sample(first, 'tempmail_event_streams_open')).toBe(0);
    expect(first).toMatch(/^tempmail_build_info\{version="[^"]+",node="v\d+\.\d+\.\d+"\} 1$/m);
    // makeServerCert's certificate is valid for a while from now.
    expect(sample(first, 'tempmail_tls_certificate_expiry_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000);

    const box = await newSession(serve.baseUrl);
    const stream = await openEvents(serve.baseUrl, { headers: { authorization: `Bearer ${box.token}` } });
    cleanup.defer(stream, (s) => s.close());
    await sendMail(serve, { to: box.email, subject: 'counted', text: 'x' });
    serve.child.kill('SIGHUP');
    await waitFor(() => serve.stderr().includes('SIGHUP: config reloaded'), { message: 'the reload' });
    const blocked = await call(serve.baseUrl, '/admin/block', {
      form: { kind: 'ip', value: '127.0.0.9' },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(blocked.status).toBe(200);
    const refused = await openSmtp(serve, 10_000, '127.0.0.9');
    expect(refused.greeting).toMatch(/^554 5\.7\.1/);
    refused.destroy();

    const after = await waitFor(
      async () => {
        const text = await scrape(serve.baseUrl);
        return sample(text, 'tempmail_smtp_blocked_total{kind="ip"}') === 1 ? text : undefined;
      },
      { message: 'the blocked connection counted' },
    );
    expect(sample(after, 'tempmail_sessions_created_total')).toBe(1);
    expect(sample(after, 'tempmail_sessions_active')).toBe(1);
    expect(sample(after, 'tempmail_event_streams_open')).toBe(1);
    expect(sample(after, 'tempmail_smtp_transaction_duration_seconds_count{result="stored"}')).toBe(1);
    expect(sample(after, 'tempmail_reloads_total{result="ok"}')).toBe(1);
    expect(sample(after, 'tempmail_storage_query_duration_seconds_count{op="deliver"}')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'tempmail_storage_query_duration_seconds_count{op="insertSession"}')).toBe(1);

    // A certificate that does not check out: the reload is refused, and counted so.
    await writeFile(cert.cert, 'not a certificate\n');
    serve.child.kill('SIGHUP');
    await waitFor(() => serve.stderr().includes('SIGHUP: kept the certificate in use'), {
      message: 'the refused reload',
    });
    const refusedReload = await scrape(serve.baseUrl);
    expect(sample(refusedReload, 'tempmail_reloads_total{result="refused"}')).toBe(1);
    expect(sample(refusedReload, 'tempmail_reloads_total{result="ok"}')).toBe(1);
  });
});
