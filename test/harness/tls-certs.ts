/**
 * Throwaway certificates for TLS tests, made with the openssl command line (Node can check certificates
 * but not sign them): a test CA, and server certificates it signs for a host name.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  cert: string;
  key: string;
  /** The CA certificate, PEM: what a client is told to trust. */
  pem: string;
}

export interface ServerCert {
  cert: string;
  key: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA valid for two days, in `dir`. */
export function makeCa(dir: string, name = 'tempmail-tui test CA'): TestCa {
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return { dir, cert, key, pem: readFileSync(cert, 'utf8') };
}

/** A server certificate for `host` signed by `ca`, written as `<name>.crt` / `<name>.key` in the CA's dir. */
export function makeServerCert(ca: TestCa, name: string, host: string): ServerCert {
  const cert = join(ca.dir, `${name}.crt`);
  const key = join(ca.dir, `${name}.key`);
  const csr = join(ca.dir, `${name}.csr`);
  const ext = join(ca.dir, `${name}.ext`);
  writeFileSync(ext, `subjectAltName=DNS:${host}\nextendedKeyUsage=serverAuth\n`);
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      csr,
      '-subj',
      `/CN=${host}`,
    ],
    ca.dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      ext,
    ],
    ca.dir,
  );
  return { cert, key };
}
