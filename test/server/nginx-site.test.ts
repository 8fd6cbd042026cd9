/**
 * scripts/deploy/nginx-tempmail-tui.conf in a real nginx (Debian's nginx-light; .ci/run installs it) in
 * front of the built `serve`, the site file as shipped but for its ports, paths and a test certificate:
 * the event stream passes through at once (no buffering), and with the backend down a token in a query
 * string reaches none of nginx's logs (its error log quotes the request line of a failed proxy).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../src/client/push/sse';
import { cleanupAfterEach } from '../harness/cleanup';
import { requireDebianProgram } from '../harness/debian-program';
import { newSession } from '../harness/http';
import { nginxGet, startNginx as startSite } from '../harness/nginx';
import { startServeProcess, stopServe } from '../harness/serve-process';
import { sendMail } from '../harness/service';
import { makeCa, type TestCa } from '../harness/tls-certs';

const cleanup = cleanupAfterEach();
const SITE = readFileSync(
  fileURLToPath(new URL('../../scripts/deploy/nginx-tempmail-tui.conf', import.meta.url)),
  'utf8',
);
// Without nginx, says what to install and leaves this file out (CI: fails); vitest.config.ts leaves it out of a whole run.
const NGINX = requireDebianProgram('nginx', 'nginx-light', 'test/server/nginx-site.test.ts');

/** nginx running the shipped site in `dir`, proxying to `backendPort`; resolves once it listens. */
const startNginx = (dir: string, backendPort: number, ca: TestCa) => startSite(cleanup, dir, SITE, [backendPort], ca);
const get = nginxGet;

describe.skipIf(!NGINX)('the nginx site in scripts/deploy', () => {
  it('passes the event stream through at once, and keeps a token out of its logs when the backend is down', async () => {
    const dir = await cleanup.tempDir('tempmail-nginx-');
    const ca = makeCa(dir);
    const serve = cleanup.defer(await startServeProcess(['--data-dir', join(dir, 'data'), '--trust-proxy']), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    const nginx = await startNginx(dir, Number(new URL(serve.baseUrl).port), ca);

    // The event stream, through nginx, with the token in a header: each message said as it is stored.
    const box = await newSession(serve.baseUrl);
    const stream = await get(nginx.port, ca, '/events', {
      authorization: `Bearer ${box.token}`,
      accept: 'text/event-stream',
    });
    expect(stream.statusCode).toBe(200);
    cleanup.defer(stream, (s) => s.destroy());
    const events = readEvents(stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    await sendMail(serve, { to: box.email, subject: 'through nginx' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error('no event through nginx within 5 s')), 5000)),
    );
    const first = await Promise.race([events.next(), late]).finally(() => clearTimeout(timer));
    expect(first.value).toMatchObject({ event: 'mail' });
    stream.destroy();

    // The backend goes away; a client of the interface sends its token in the query string.
    await stopServe(serve);
    const secret = 'tok_nginx_must_never_log_this_0123456789ab';
    const failed = await get(nginx.port, ca, `/check-mail?token=${secret}`);
    failed.resume();
    expect(failed.statusCode).toBe(502);
    expect(nginx.logs()).not.toContain(secret);
  });

  it('refuses /admin/ (404) in every spelling, even from a serve with the admin API on its HTTP port', async () => {
    const dir = await cleanup.tempDir('tempmail-nginx-');
    const ca = makeCa(dir);
    const token = 'nginx-admin-token-0123456789abcdef';
    await writeFile(join(dir, 'admin-token'), `${token}\n`, { mode: 0o600 });
    const args = ['--data-dir', join(dir, 'data'), '--trust-proxy', '--admin-token-file', join(dir, 'admin-token')];
    const serve = cleanup.defer(await startServeProcess(args), (p) => stopServe(p, 'SIGKILL'));
    const nginx = await startNginx(dir, Number(new URL(serve.baseUrl).port), ca);
    const status = async (path: string, headers: Record<string, string> = {}) => {
      const res = await get(nginx.port, ca, path, headers);
      res.resume();
      return res.statusCode;
    };
    const admin = { authorization: `Bearer ${token}` };
    // Direct to serve the admin API answers; through nginx it is not there.
    expect((await fetch(new URL('admin/stats', serve.baseUrl), { headers: admin })).status).toBe(200);
    for (const path of [
      '/admin/stats',
      '/admin/stats/',
      '/admin/block?kind=ip&value=1.2.3.4',
      '/%61dmin/stats',
      '//admin/stats',
      '/x/../admin/stats',
      '/admin/%73tats',
    ]) {
      expect(await status(path, admin), path).toBe(404);
    }
    // The rest of the API passes.
    expect(await status('/domains')).toBe(200);
    expect(nginx.logs()).not.toContain(token);
  });
});
