/**
 * `serve --tls-cert FILE --tls-key FILE` offers STARTTLS. The built program in a child process, a CA and
 * certificates the test makes with openssl, and real clients that upgrade and check the certificate:
 * nodemailer with requireTLS (trusting only the test CA) delivers a message that is then read back over
 * HTTP, and SIGHUP makes the next STARTTLS offer the renewed certificate; a broken one is refused and
 * the one in use stays.
 */
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { spawnCli, startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { makeCa, makeServerCert, type TestCa } from '../../harness/tls-certs';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const HOST = 'mail.tempmail.test';

/** STARTTLS by hand, trusting `ca` only and checking the name: the SHA-256 fingerprint of what is served. */
function servedFingerprint(target: { smtpHost: string; smtpPort: number }, ca: TestCa): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target.smtpPort, target.smtpHost);
    let text = '';
    let step = 0;
    socket.setTimeout(10_000, () => socket.destroy(new Error('no STARTTLS answer')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(text)) return; // wait for a whole (last-line) reply
      const reply = text;
      text = '';
      if (step === 0) socket.write('EHLO probe.test\r\n');
      else if (step === 1) {
        if (!/STARTTLS/.test(reply)) return reject(new Error(`no STARTTLS in EHLO: ${reply}`));
        socket.write('STARTTLS\r\n');
      } else if (step === 2) {
        if (!/^220/.test(reply)) return reject(new Error(`STARTTLS refused: ${reply}`));
        socket.removeAllListeners('data');
        const secure = tls.connect({ socket, ca: ca.pem, servername: HOST }, () => {
          const fingerprint = secure.getPeerCertificate().fingerprint256;
          secure.end('QUIT\r\n');
          resolve(fingerprint);
        });
        secure.on('error', reject);
      }
      step++;
    });
  });
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;

async function sendOverTls(target: ServeReady, ca: TestCa, to: string, subject: string) {
  const transport = nodemailer.createTransport({
    host: target.smtpHost,
    port: target.smtpPort,
    secure: false,
    requireTLS: true,
    tls: { ca: ca.pem, servername: HOST },
    connectionTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    return await transport.sendMail({ from: 'tls@example.org', to, subject, text: 'sent over STARTTLS' });
  } finally {
    transport.close();
  }
}

describe('serve with --tls-cert and --tls-key', () => {
  it('offers STARTTLS, delivers over it to a client that requires TLS, and serves a renewed certificate after SIGHUP', async () => {
    const dir = await cleanup.tempDir('tempmail-tls-');
    const ca = makeCa(dir);
    const first = makeServerCert(ca, 'first', HOST);
    const renewed = makeServerCert(ca, 'renewed', HOST);
    // The paths serve reads; renewal replaces their contents, as certbot's live/ links do.
    const certFile = `${dir}/served.crt`;
    const keyFile = `${dir}/served.key`;
    copyFileSync(first.cert, certFile);
    copyFileSync(first.key, keyFile);
    const proc = cleanup.defer(
      await startServeProcess(['--data-dir', `${dir}/data`, '--tls-cert', certFile, '--tls-key', keyFile]),
      (p) => stopServe(p, 'SIGKILL'),
    );
    expect(proc.stderr()).toContain(`smtp offers STARTTLS with CN=${HOST}, valid until `);
    const box = await newSession(proc.baseUrl);
    const sent = await sendOverTls(proc, ca, box.email, 'through TLS');
    expect(sent.response).toMatch(/^250 /);
    const list = await call(proc.baseUrl, '/check-mail', { query: { token: box.token } });
    expect(list.json?.messages.map((m: { subject: string }) => m.subject)).toEqual(['through TLS']);
    expect(await servedFingerprint(proc, ca)).toBe(fingerprintOf(first.cert));

    copyFileSync(renewed.cert, certFile);
    copyFileSync(renewed.key, keyFile);
    proc.child.kill('SIGHUP');
    await waitFor(() => proc.stderr().includes(`SIGHUP: STARTTLS now offers CN=${HOST}, valid until `), {
      message: 'the reload to be logged',
    });
    expect(proc.stderr()).toContain(fingerprintOf(renewed.cert));
    expect(await servedFingerprint(proc, ca)).toBe(fingerprintOf(renewed.cert));

    // A broken renewal (a truncated file, a key of another certificate): refused, the renewed one stays.
    for (const [cert, key, why] of [
      ['-----BEGIN CERTIFICATE-----\nnot base64 at all\n', renewed.key, `${certFile} holds no PEM certificate`],
      [first.cert, renewed.key, `the key in ${keyFile} does not belong to the certificate in ${certFile}`],
    ] as const) {
      if (cert.startsWith('-----')) writeFileSync(certFile, cert);
      else copyFileSync(cert, certFile);
      copyFileSync(key, keyFile);
      const before = proc.stderr().length;
      proc.child.kill('SIGHUP');
      const said = await waitFor(
        () =>
          proc
            .stderr()
            .slice(before)
            .match(/SIGHUP: kept the certificate in use: [^\n]*/)?.[0],
        { message: 'the refusal to be logged' },
      );
      expect(said).toContain(why);
      expect(await servedFingerprint(proc, ca)).toBe(fingerprintOf(renewed.cert));
    }
    await sendOverTls(proc, ca, box.email, 'still through TLS');
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });

  it('refuses to start on a missing or unusable certificate, or with one flag of the pair', async () => {
    const dir = await cleanup.tempDir('tempmail-tls-');
    const ca = makeCa(dir);
    const good = makeServerCert(ca, 'good', HOST);
    const other = makeServerCert(ca, 'other', HOST);
    const cases: [string[], number, string][] = [
      [
        ['--tls-cert', good.cert],
        2,
        'tempmail-tui serve: give --tls-cert and --tls-key together (or tlsCert and tlsKey in the config file)',
      ],
      [
        ['--tls-cert', `${dir}/nope.crt`, '--tls-key', good.key],
        1,
        `tempmail-tui serve: cannot read the TLS certificate ${dir}/nope.crt (ENOENT)`,
      ],
      [
        ['--tls-cert', good.cert, '--tls-key', other.key],
        1,
        `tempmail-tui serve: the key in ${other.key} does not belong to the certificate in ${good.cert}`,
      ],
      [['--tls-cert', good.key, '--tls-key', good.key], 1, `tempmail-tui serve: ${good.key} holds no PEM certificate`],
    ];
    for (const [args, code, line] of cases) {
      const proc = spawnCli(['serve', '--data-dir', `${dir}/data`, '--http-port', '0', '--smtp-port', '0', ...args]);
      expect((await proc.exited).code, args.join(' ')).toBe(code);
      expect(proc.stderr().split('\n')[0], args.join(' ')).toContain(line);
      expect(proc.stdout()).toBe('');
    }
  });

  it('without a certificate offers no STARTTLS, and SIGHUP stops it gracefully as when its terminal closes', async () => {
    const dir = await cleanup.tempDir('tempmail-tls-');
    const proc = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p, 'SIGKILL'));
    const c = await openSmtp(proc);
    expect(await c.command('EHLO plain.test')).not.toContain('STARTTLS');
    expect(await c.command('STARTTLS')).toMatch(/^5\d\d /);
    await c.command('QUIT');
    expect(await stopServe(proc, 'SIGHUP')).toEqual({ code: 0, signal: null });
    expect(proc.stderr()).toContain('SIGHUP: closing');
  });
});
