/**
 * The three `tls` modes of an IMAP account, against Dovecot with a certificate from a test CA (trusted
 * by the built `serve` through NODE_EXTRA_CA_CERTS, as an operator adds a private CA): TLS from the first
 * byte and STARTTLS fetch; a certificate for another name is refused; STARTTLS is required, so a server
 * that does not offer it is a failure, never a fall back to clear text.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot } from '../../harness/dovecot/dovecot';
import { appendMail, message } from '../../harness/dovecot/mailbox';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { makeCa, makeServerCert } from '../../harness/tls-certs';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();

describe('IMAP over TLS and STARTTLS', () => {
  it('fetches over TLS and STARTTLS, refuses a certificate for another name and a server without STARTTLS', async () => {
    const certs = await cleanup.tempDir('tempmail-imap-tls-');
    const ca = makeCa(certs);
    const cert = makeServerCert(ca, 'imap', 'localhost');
    const users = ['secure', 'upgraded', 'misnamed'].map((name) => ({ name, password: `pw-${name}-S3cret!` }));
    const withTls = cleanup.defer(await startDovecot({ users, tls: { certFile: cert.cert, keyFile: cert.key } }), (d) =>
      d.remove(),
    );
    const stripped = { name: 'stripped', password: 'pw-stripped-S3cret!' };
    const plain = cleanup.defer(await startDovecot({ users: [stripped] }), (d) => d.remove());

    const account = (name: string, imap: Record<string, unknown>) => ({
      email: `${name}@ext.test`,
      imap: { user: name, passwordEnv: `PW_${name.toUpperCase()}`, pollSeconds: 1, ...imap },
    });
    const config = join(certs, 'serve.json');
    await writeFile(
      config,
      JSON.stringify({
        domains: ['tempmail.test'],
        extmailAccounts: [
          account('secure', { host: 'localhost', port: withTls.tlsPort, tls: 'tls' }),
          account('upgraded', { host: 'localhost', port: withTls.port, tls: 'starttls' }),
          // The certificate names localhost, not 127.0.0.1.
          account('misnamed', { host: '127.0.0.1', port: withTls.tlsPort, tls: 'tls' }),
          account('stripped', { host: '127.0.0.1', port: plain.port, tls: 'starttls' }),
        ],
      }),
    );
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: ca.cert };
    for (const u of [...users, stripped]) env[`PW_${u.name.toUpperCase()}`] = u.password;
    const serve = cleanup.defer(
      await startServeProcess(['--data-dir', join(certs, 'data'), '--config', config], env),
      (p) => stopServe(p),
    );

    const offered = async () =>
      ((await call(serve.baseUrl, 'domains')).json!.extmail_accounts as { id: number; email: string }[]).map(
        (a) => a.email,
      );
    await waitFor(
      async () => JSON.stringify(await offered()) === JSON.stringify(['secure@ext.test', 'upgraded@ext.test']),
      {
        timeoutMs: 20_000,
        message: 'only the two good accounts to be offered',
      },
    );
    const log = serve.stderr();
    expect(log).toMatch(
      /imap misnamed@ext\.test: inactive \(not offered by GET \/domains\): TLS with 127\.0\.0\.1:\d+ failed: .*(IP|altnames)/,
    );
    expect(log).toMatch(/imap stripped@ext\.test: inactive \(not offered by GET \/domains\): .*STARTTLS/);
    for (const u of [...users, stripped]) expect(log).not.toContain(u.password);

    for (const [id, u] of [
      [1, users[0]!],
      [2, users[1]!],
    ] as const) {
      const created = (await call(serve.baseUrl, 'create-session', { form: { extmail_id: id, prefix: 'sealed' } }))
        .json as { email: string; token: string };
      await appendMail(withTls, u, message({ To: created.email, Subject: `via ${u.name}` }));
      await waitFor(
        async () =>
          ((await call(serve.baseUrl, 'check-mail', { query: { token: created.token } })).json!.messages as unknown[])
            .length === 1,
        {
          timeoutMs: 15_000,
          message: `the message fetched ${u.name === 'secure' ? 'over TLS' : 'after STARTTLS'}`,
        },
      );
    }
    // The stripped server saw no login: the password never crossed in clear text.
    expect(plain.log()).not.toMatch(/Login: user=<stripped>/);
  });
});
