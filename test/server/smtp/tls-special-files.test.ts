/**
 * SIGHUP reads the certificate and key again from the paths the operator gave; whatever is found there
 * (a FIFO, a symlink to /dev/zero, a directory, a file past the cap) is refused in words, the
 * certificate in use stays, and the signals keep working. Before, a FIFO hung the reload and then even
 * a second SIGTERM did not end serve (a libuv pool thread stuck in open() keeps the process from
 * exiting), and /dev/zero grew memory without limit. The built program in a child process, real
 * STARTTLS clients.
 */
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { TLS_FILE_MAX_BYTES } from '../../../src/server/smtp/tls-files';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { makeCa, makeServerCert, type TestCa } from '../../harness/tls-certs';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const HOST = 'mail.tempmail.test';

/** The SHA-256 fingerprint STARTTLS offers now (trusting only `ca`). */
function servedFingerprint(target: ServeReady, ca: TestCa): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target.smtpPort, target.smtpHost);
    let text = '';
    let step = 0;
    socket.setTimeout(10_000, () => socket.destroy(new Error('no STARTTLS answer')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(text)) return;
      text = '';
      if (step === 0) socket.write('EHLO probe.test\r\n');
      else if (step === 1) socket.write('STARTTLS\r\n');
      else if (step === 2) {
        socket.removeAllListeners('data');
        const secure = tls.connect({ socket, ca: ca.pem, servername: HOST }, () => {
          resolve(secure.getPeerCertificate().fingerprint256);
          secure.end('QUIT\r\n');
        });
        secure.on('error', reject);
      }
      step++;
    });
  });
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;

/** Sends SIGHUP and returns the reload's log line (refusal or success) that follows it. */
async function reload(proc: ServeReady, timeoutMs = 10_000): Promise<string> {
  const before = proc.stderr().length;
  proc.child.kill('SIGHUP');
  return waitFor(
    () =>
      proc
        .stderr()
        .slice(before)
        .match(/SIGHUP: [^\n]*/)?.[0],
    { timeoutMs, message: 'the reload to be logged' },
  );
}

/** A serve process offering a copy of a fresh certificate at `certFile`, and what it needs. */
async function serveWithTls() {
  const dir = await cleanup.tempDir('tempmail-tls-special-');
  const ca = makeCa(dir);
  const first = makeServerCert(ca, 'first', HOST);
  const certFile = `${dir}/served.crt`;
  const keyFile = `${dir}/served.key`;
  copyFileSync(first.cert, certFile);
  copyFileSync(first.key, keyFile);
  const proc = cleanup.defer(
    await startServeProcess(['--data-dir', `${dir}/data`, '--tls-cert', certFile, '--tls-key', keyFile]),
    (p) => stopServe(p, 'SIGKILL'),
  );
  return { dir, ca, first, certFile, keyFile, proc };
}

describe('SIGHUP with special files where the certificate was', () => {
  it('refuses a FIFO at once, keeps the certificate in use, and SIGTERM then ends serve', async () => {
    const { ca, first, certFile, proc } = await serveWithTls();
    rmSync(certFile);
    execFileSync('mkfifo', [certFile]);
    expect(await reload(proc)).toBe(
      `SIGHUP: kept the certificate in use: cannot read the TLS certificate ${certFile} (not a regular file but a FIFO)`,
    );
    expect(await servedFingerprint(proc, ca)).toBe(fingerprintOf(first.cert));
    // Nothing of the reload is left waiting: a plain SIGTERM ends serve, gracefully.
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void proc.exited.then((how) => (exited = how));
    proc.child.kill('SIGTERM');
    expect(await waitFor(() => exited, { timeoutMs: 10_000, message: 'serve to exit on SIGTERM' })).toEqual({
      code: 0,
      signal: null,
    });
  });

  it('ends on a SIGTERM sent right after a SIGHUP that meets a FIFO', async () => {
    const { certFile, keyFile, proc } = await serveWithTls();
    for (const file of [certFile, keyFile]) {
      rmSync(file);
      execFileSync('mkfifo', [file]);
    }
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void proc.exited.then((how) => (exited = how));
    proc.child.kill('SIGHUP');
    proc.child.kill('SIGTERM');
    expect(await waitFor(() => exited, { timeoutMs: 10_000, message: 'serve to exit on SIGTERM' })).toEqual({
      code: 0,
      signal: null,
    });
  });

  it('refuses a symlink to /dev/zero, a directory, and a file one byte past the cap; follows a symlink to a regular file', async () => {
    const { ca, first, certFile, keyFile, proc } = await serveWithTls();
    const served = fingerprintOf(first.cert);
    const cases: [string, () => void, string][] = [
      ['/dev/zero', () => symlinkSync('/dev/zero', certFile), 'not a regular file but a character device'],
      ['a directory', () => mkdirSync(certFile), 'not a regular file but a directory'],
      // A real certificate, padded past the cap with lines PEM readers skip.
      [
        'past the cap',
        () => writeFileSync(certFile, padded(first.cert, TLS_FILE_MAX_BYTES + 1)),
        `larger than ${TLS_FILE_MAX_BYTES} bytes`,
      ],
    ];
    for (const [what, make, why] of cases) {
      rmSync(certFile, { recursive: true, force: true });
      make();
      expect(await reload(proc, 5000), what).toBe(
        `SIGHUP: kept the certificate in use: cannot read the TLS certificate ${certFile} (${why})`,
      );
      expect(await servedFingerprint(proc, ca), what).toBe(served);
    }

    // The cap itself: the same certificate padded to exactly the cap is taken.
    const renewed = makeServerCert(ca, 'renewed', HOST);
    rmSync(certFile, { recursive: true, force: true });
    writeFileSync(certFile, padded(renewed.cert, TLS_FILE_MAX_BYTES));
    copyFileSync(renewed.key, keyFile);
    expect(await reload(proc)).toMatch(/^SIGHUP: STARTTLS now offers CN=mail\.tempmail\.test/);
    expect(await servedFingerprint(proc, ca)).toBe(fingerprintOf(renewed.cert));

    // A symlink (certbot's live/ links) is followed to the regular file it names.
    rmSync(certFile);
    copyFileSync(first.key, keyFile);
    symlinkSync(first.cert, certFile);
    expect(await reload(proc)).toMatch(/^SIGHUP: STARTTLS now offers CN=mail\.tempmail\.test/);
    expect(await servedFingerprint(proc, ca)).toBe(served);
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});

/** The PEM file `file` followed by comment lines up to exactly `bytes` bytes. */
function padded(file: string, bytes: number): Buffer {
  const pem = readFileSync(file);
  const line = Buffer.from(`${'#'.repeat(63)}\n`);
  const out = Buffer.alloc(bytes, 0x0a);
  pem.copy(out);
  for (let at = pem.length; at + line.length <= bytes; at += line.length) line.copy(out, at);
  return out;
}
