/**
 * The built `serve` behind a real nginx stream proxy (Debian's nginx-light with its stream module;
 * .ci/run installs it) that sends the PROXY protocol v1 (`proxy_protocol on`, as docs/server/smtp.md
 * shows it) from its own address (`proxy_bind 127.0.0.41`, listed in trustedProxies): each sender behind
 * it is held to its own per-client share, and its mail is logged under its own address, though every
 * connection reaches serve from nginx. Without nginx or its stream module a developer's run says loudly
 * that this test is left out; under CI=true it fails instead.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDaemon } from '../../harness/daemon';
import { newSession } from '../../harness/http';
import { closedPort } from '../../harness/ports';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';
import { findDebianProgram } from '../../harness/debian-program';

const NGINX = findDebianProgram('nginx', 'nginx-light').path;
const STREAM = ['/usr/lib/nginx/modules/ngx_stream_module.so'].find((p) => existsSync(p));
if (!NGINX || !STREAM) {
  const why = 'nginx with its stream module is not installed: install the nginx-light and libnginx-mod-stream packages';
  if (process.env.CI === 'true') throw new Error(`CI: ${why}; the nginx stream test must run in CI.`);
  const bar = '!'.repeat(100);
  console.warn(`\n${bar}\n!! SKIPPED: test/server/smtp/smtp-nginx-proxy.test.ts. ${why}.\n${bar}\n`);
}

const cleanup = cleanupAfterEach();
const PROXY = '127.0.0.41';

/** nginx's stream proxy in front of `smtpPort`, as docs/server/smtp.md shows it; resolves with its port once it listens. */
async function startNginxStream(dir: string, smtpPort: number): Promise<number> {
  const port = await closedPort();
  const file = join(dir, 'nginx.conf');
  await writeFile(
    file,
    `load_module ${STREAM};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
stream {
  server {
    listen 127.0.0.1:${port};
    proxy_pass 127.0.0.1:${smtpPort};
    proxy_bind ${PROXY};
    proxy_protocol on;
  }
}
`,
  );
  await startDaemon(cleanup, NGINX!, ['-p', dir, '-c', file, '-g', 'daemon off; master_process off;'], port);
  return port;
}

describe.skipIf(!NGINX || !STREAM)('serve behind nginx stream with proxy_protocol on', () => {
  it('holds each sender behind nginx to its own share of connections, and stores its mail under its own address', async () => {
    const dir = await cleanup.tempDir('tempmail-nginx-stream-');
    const config = join(dir, 'serve.json');
    await writeFile(config, JSON.stringify({ trustedProxies: [PROXY], smtpConnectionsPerClient: 2 }));
    const serve = cleanup.defer(
      await startServeProcess(['--data-dir', join(dir, 'data'), '--config', config, '--log-format', 'json']),
      (p) => stopServe(p, 'SIGKILL'),
    );
    const front = { smtpHost: '127.0.0.1', smtpPort: await startNginxStream(dir, serve.smtpPort) };
    const open = async (from: string) => cleanup.defer(await openSmtp(front, 10_000, from), (c) => c.destroy());

    for (let i = 0; i < 2; i++) expect((await open('127.0.0.5')).greeting).toMatch(/^220 /);
    expect((await open('127.0.0.5')).greeting).toBe(
      '421 4.7.0 Too many connections from your address (at most 2 at once), try again later',
    );
    // Another sender through the same nginx still gets in, and its message is stored under its address.
    const box = await newSession(serve.baseUrl);
    const other = await open('127.0.0.6');
    expect(other.greeting).toMatch(/^220 /);
    for (const line of ['EHLO other.test', 'MAIL FROM:<a@example.org>', `RCPT TO:<${box.email}>`])
      expect(await other.command(line)).toMatch(/^250/);
    expect(await other.command('DATA')).toMatch(/^354/);
    other.write('Subject: through nginx\r\n\r\nhello\r\n.\r\n');
    expect(await other.reply()).toMatch(/^250 /);
    const stored = await waitFor(
      () =>
        serve
          .stderr()
          .split('\n')
          .filter((l) => l.includes('"event":"smtp.stored"'))
          .map((l) => JSON.parse(l) as { client?: string })[0],
      { message: 'the stored line' },
    );
    expect(stored.client).toBe('127.0.0.6');
    expect(serve.stderr()).toMatch(/"event":"smtp.connection_refused".*"client":"127\.0\.0\.5"/);
    expect(serve.stderr()).not.toContain(`"client":"${PROXY}"`);
  });
});
