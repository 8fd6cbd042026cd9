/**
 * What an operator reads of a running `serve` (the built program): GET /metrics in Prometheus text with
 * `--metrics` (on the HTTP port, or on its own with --metrics-listen), JSON log lines with
 * `--log-format json`, and a failed STARTTLS handshake logged with its reason. Real SMTP (nodemailer over
 * STARTTLS, a raw client that botches the handshake), real HTTP. prom-client is loaded only with
 * --metrics: a module-load probe watches every module the program loads.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { openSmtp } from '../../harness/smtp-dialog';
import { makeCa, makeServerCert } from '../../harness/tls-certs';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const HOST = 'mail.tempmail.test';

/** STARTTLS, then plain text where the TLS ClientHello should be: the server's handshake fails. */
function botchHandshake(target: { smtpHost: string; smtpPort: number }): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(target.smtpPort, target.smtpHost);
    let text = '';
    let step = 0;
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(text)) return;
      text = '';
      if (step === 0) socket.write('EHLO botch.test\r\n');
      else if (step === 1) socket.write('STARTTLS\r\n');
      else if (step === 2) socket.write('this is not a TLS ClientHello at all\r\n\r\n');
      step++;
    });
  });
}

/** The value of one sample line of /metrics (`name{labels} value`). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('serve --metrics --log-format json', () => {
  it('counts mail, refusals, TLS handshakes and requests in /metrics, and logs JSON lines with the client, TLS, message id and session hash', async () => {
    const dir = await cleanup.tempDir('tempmail-metrics-');
    const ca = makeCa(dir);
    const cert = makeServerCert(ca, 'server', HOST);
    const serve = cleanup.defer(
      await startServeProcess([
        '--data-dir',
        `${dir}/data`,
        '--metrics',
        '--log-format',
        'json',
        '--tls-cert',
        cert.cert,
        '--tls-key',
        cert.key,
      ]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const box = await newSession(serve.baseUrl);
    expect((await call(serve.baseUrl, '/check-mail', { query: { token: box.token } })).status).toBe(200);
    const transport = nodemailer.createTransport({
      host: serve.smtpHost,
      port: serve.smtpPort,
      secure: false,
      requireTLS: true,
      tls: { ca: ca.pem, servername: HOST },
    });
    try {
      await transport.sendMail({
        from: 'tls@example.org',
        to: box.email,
        subject: 'over tls',
        text: 'x',
        messageId: '<metrics-test-1@example.org>',
      });
    } finally {
      transport.close();
    }
    const refused = await openSmtp(serve);
    await refused.command('EHLO refused.test');
    await refused.command('MAIL FROM:<a@example.org>');
    expect(await refused.command('RCPT TO:<nobody@tempmail.test>')).toMatch(/^550 5\.1\.1/);
    refused.destroy();
    await botchHandshake(serve);
    await waitFor(() => serve.stderr().includes('"event":"smtp.tls_failed"'), { message: 'the failed handshake line' });

    const metrics = (await call(serve.baseUrl, '/metrics')).bytes.toString();
    expect(sample(metrics, 'tempmail_messages_stored_total')).toBe(1);
    expect(sample(metrics, 'tempmail_messages_refused_total{reason="no_such_mailbox"}')).toBe(1);
    expect(sample(metrics, 'tempmail_tls_handshakes_total{result="ok"}')).toBe(1);
    expect(sample(metrics, 'tempmail_tls_handshakes_total{result="failed"}')).toBe(1);
    expect(sample(metrics, 'tempmail_http_requests_total{route="create-session",status="200"}')).toBe(1);
    expect(sample(metrics, 'tempmail_http_requests_total{route="check-mail",status="200"}')).toBe(1);
    expect(sample(metrics, 'tempmail_http_request_duration_seconds_count{route="check-mail"}')).toBe(1);
    expect(sample(metrics, 'tempmail_storage_up')).toBe(1);
    expect(sample(metrics, 'tempmail_storage_full')).toBe(0);
    expect(sample(metrics, 'tempmail_stored_messages')).toBe(1);
    expect(sample(metrics, 'tempmail_stored_bytes')).toBeGreaterThan(0);
    expect(sample(metrics, 'tempmail_smtp_connections_open')).toBeGreaterThanOrEqual(0);
    expect(metrics).toMatch(/^# TYPE tempmail_smtp_connections_refused_total counter$/m);
    expect(metrics).toMatch(/^# TYPE tempmail_storage_errors_total counter$/m);
    expect(metrics).toMatch(/^# TYPE tempmail_imap_accounts gauge$/m);

    const lines = serve
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const line of lines) expect(Object.keys(line).slice(0, 4)).toEqual(['time', 'level', 'event', 'msg']);
    const stored = lines.find((l) => l.event === 'smtp.stored')!;
    expect(stored).toMatchObject({
      level: 'info',
      client: '127.0.0.1',
      tls: true,
      message_id: '<metrics-test-1@example.org>',
    });
    const failed = lines.find((l) => l.event === 'smtp.tls_failed')!;
    expect(failed).toMatchObject({ level: 'warn', client: '127.0.0.1' });
    // The reason is OpenSSL's (a record that is no TLS), not a bare "error".
    expect(String(failed.reason)).toMatch(
      /wrong version number|packet length too long|http request|unsupported protocol|record/i,
    );
    const checked = lines.find(
      (l) => l.event === 'http.request' && String(l.msg).startsWith('http GET /check-mail 200'),
    )!;
    expect(checked.session).toMatch(/^[0-9a-f]{16}$/);
    expect(serve.stderr()).not.toContain(box.token);
  });

  it('--metrics-listen serves /metrics on its own address only', async () => {
    const dir = await cleanup.tempDir('tempmail-metrics-');
    const serve = cleanup.defer(await startServeProcess(['--data-dir', dir, '--metrics-listen', '127.0.0.1:0']), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    const url = await waitFor(() => /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(serve.stderr())?.[1], {
      message: 'the metrics address',
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toMatch(/^tempmail_storage_up 1$/m);
    expect((await call(serve.baseUrl, '/metrics')).status).toBe(404);
  });

  it('loads prom-client only with --metrics; without, /metrics is no route', async () => {
    const probe = fileURLToPath(new URL('./load-probe.mjs', import.meta.url));
    const loaded = async (args: string[]) => {
      const dir = await cleanup.tempDir('tempmail-metrics-');
      const out = `${dir}/loaded.txt`;
      const serve = await startServeProcess(['--data-dir', `${dir}/data`, ...args], {
        NODE_OPTIONS: `--import ${probe}`,
        LOAD_PROBE_OUT: out,
      });
      const metrics = (await call(serve.baseUrl, '/metrics')).status;
      await stopServe(serve);
      return { metrics, modules: readFileSync(out, 'utf8') };
    };
    const off = await loaded([]);
    expect(off.modules).toMatch(/serve-cli-[\w-]+\.js/);
    expect(off.modules).not.toMatch(/prom-metrics/);
    expect(off.metrics).toBe(404);
    const on = await loaded(['--metrics']);
    expect(on.modules).toMatch(/prom-metrics-[\w-]+\.js/);
    expect(on.metrics).toBe(200);
  });
});
