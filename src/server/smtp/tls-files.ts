/**
 * The certificate and key that `serve` offers through STARTTLS, read from PEM files: at start (a bad one
 * is a start error) and again on SIGHUP (a bad one is refused and the certificate in use stays). Every
 * check happens here, before smtp-server is handed anything, so a refused file never half-replaces a
 * good one.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { OperatorFileError, readOperatorFile } from '../../platform/operator-file';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate and its key, checked, ready for smtp-server. */
export interface LoadedTls {
  cert: Buffer;
  key: Buffer;
  /** "CN=mail.example.org, valid until Mar 1 12:00:00 2027 GMT, SHA-256 AB:CD:..." for the log. */
  summary: string;
  /** When the certificate expires (ms since the epoch), for the metrics. */
  notAfter: number;
}

/**
 * A PEM certificate with its whole chain is a few kilobytes, a key less: 1 MiB is far past any real one
 * and still small enough to hold twice (a reload reads the new pair while the old one is in use).
 */
export const TLS_FILE_MAX_BYTES = 1024 * 1024;
/** A certificate on a stuck network file system must not leave a reload (or the start) waiting forever. */
const TLS_READ_TIMEOUT_MS = 5000;

async function read(file: string, what: string): Promise<Buffer> {
  try {
    return await readOperatorFile(file, { maxBytes: TLS_FILE_MAX_BYTES, timeoutMs: TLS_READ_TIMEOUT_MS });
  } catch (error) {
    const why = error instanceof OperatorFileError ? error.reason : 'error';
    throw new Error(`cannot read the TLS ${what} ${file} (${why})`);
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Reads and checks the pair; throws an Error whose message says which file is wrong and why. */
export async function loadTls(files: TlsFiles): Promise<LoadedTls> {
  const [cert, key] = await Promise.all([read(files.certFile, 'certificate'), read(files.keyFile, 'key')]);
  let x509: X509Certificate;
  try {
    // The first certificate of the file is the server's own; a full chain may follow it.
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new Error(`${files.certFile} holds no PEM certificate (${reason(error)})`);
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key))) {
      throw new Error(`the key in ${files.keyFile} does not belong to the certificate in ${files.certFile}`);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('the key in')) throw error;
    throw new Error(`${files.keyFile} holds no usable PEM private key (${reason(error)})`);
  }
  try {
    // What smtp-server will do with them: any other refusal by OpenSSL (a broken chain) shows here.
    createSecureContext({ cert, key });
  } catch (error) {
    throw new Error(`OpenSSL refuses ${files.certFile} with ${files.keyFile} (${reason(error)})`);
  }
  const subject =
    x509.subject.split('\n').find((line) => line.startsWith('CN=')) ?? x509.subject.replaceAll('\n', ', ');
  const notAfter = Date.parse(x509.validTo);
  const expired = notAfter < Date.now() ? ' (EXPIRED: senders that check will refuse it)' : '';
  return {
    cert,
    key,
    notAfter,
    summary: `${subject}, valid until ${x509.validTo}${expired}, SHA-256 ${x509.fingerprint256}`,
  };
}
