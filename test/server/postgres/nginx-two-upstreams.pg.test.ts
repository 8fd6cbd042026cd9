/**
 * scripts/deploy/nginx-tempmail-tui-two.conf in a real nginx (Debian's nginx-light) in front of two built
 * `serve` on one Postgres database: requests go to both instances, GET /events passes through nginx and
 * hears of mail delivered through either instance, with one instance stopped every request is still
 * answered (by the other), and /admin/ is refused though both instances serve it on their HTTP port.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../../src/client/push/sse';
import { cleanupAfterEach } from '../../harness/cleanup';
import { nginxGet, startNginx } from '../../harness/nginx';
import { freshDatabase, startInstance } from '../../harness/postgres/database';
import { stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { makeCa } from '../../harness/tls-certs';
import { waitFor } from '../../harness/wait';
import { requireDebianProgram } from '../../harness/debian-program';

// Without nginx, says what to install and leaves this file out (CI: fails).
const NGINX = requireDebianProgram('nginx', 'nginx-light', 'test/server/postgres/nginx-two-upstreams.pg.test.ts');

const cleanup = cleanupAfterEach();
const SITE = readFileSync(
  fileURLToPath(new URL('../../../scripts/deploy/nginx-tempmail-tui-two.conf', import.meta.url)),
  'utf8',
);

/** A request through nginx: its status and its body as JSON. */
async function through(
  port: number,
  ca: ReturnType<typeof makeCa>,
  path: string,
  headers: Record<string, string> = {},
) {
  const res = await nginxGet(port, ca, path, headers);
  let body = '';
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode, json: JSON.parse(body) as Record<string, unknown> };
}

/** How many `GET /domains` an instance's log counts (a folded line stands for its repeats). */
const domainsServed = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.includes('http GET /domains 200'))
    .reduce((n, l) => n + Number(/repeats=(\d+)/.exec(l)?.[1] ?? 1), 0);

describe.skipIf(!NGINX)('the nginx example with two upstreams', () => {
  it('balances requests over both instances, passes /events, and answers with one instance stopped', async () => {
    const dir = await cleanup.tempDir('tempmail-nginx-two-');
    const ca = makeCa(dir);
    const { url } = await freshDatabase(cleanup);
    const adminToken = 'nginx-two-admin-token-0123456789abcdef';
    await writeFile(join(dir, 'admin-token'), `${adminToken}\n`, { mode: 0o600 });
    const args = ['--trust-proxy', '--admin-token-file', join(dir, 'admin-token')];
    const [a, b] = (await Promise.all([startInstance(cleanup, url, args), startInstance(cleanup, url, args)])) as [
      Awaited<ReturnType<typeof startInstance>>,
      Awaited<ReturnType<typeof startInstance>>,
    ];
    const nginx = await startNginx(
      cleanup,
      dir,
      SITE,
      [Number(new URL(a.baseUrl).port), Number(new URL(b.baseUrl).port)],
      ca,
    );

    // The admin API: there on each instance's own port, refused (404) through the site, in any spelling.
    const admin = { authorization: `Bearer ${adminToken}` };
    expect((await fetch(new URL('admin/stats', a.baseUrl), { headers: admin })).status).toBe(200);
    for (const path of ['/admin/stats', '/%61dmin/stats', '//admin/stats', '/x/../admin/stats']) {
      const res = await nginxGet(nginx.port, ca, path, admin);
      res.resume();
      expect(res.statusCode, path).toBe(404);
    }

    for (let i = 0; i < 10; i++) expect((await through(nginx.port, ca, '/domains')).status).toBe(200);
    // Each instance logs the requests it answered (a line may follow its answer by a moment).
    const served = () => ({ a: domainsServed(a.stderr()), b: domainsServed(b.stderr()) });
    await waitFor(() => served().a + served().b === 10, {
      message: `10 requests in the logs: ${JSON.stringify(served())}`,
    });
    expect(served().a, JSON.stringify(served())).toBeGreaterThan(0);
    expect(served().b, JSON.stringify(served())).toBeGreaterThan(0);
    console.log(`nginx with two upstreams: 10 requests, ${served().a} answered by A and ${served().b} by B`);

    // A session made through nginx, its stream held through nginx; mail through either instance's SMTP.
    const session = await postForm(nginx.port, ca, '/create-session');
    expect(session.status).toBe(200);
    const { email, token } = session.json as { email: string; token: string };
    const stream = cleanup.defer(
      await nginxGet(nginx.port, ca, '/events', { authorization: `Bearer ${token}`, accept: 'text/event-stream' }),
      (s) => s.destroy(),
    );
    expect(stream.statusCode).toBe(200);
    const events = readEvents(stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    for (const [i, via] of [a, b].entries()) {
      await sendMail(via, { to: email, subject: `via ${i}` });
      const next = await withTimeout(events.next(), 5000, `an event through nginx for mail via instance ${i}`);
      expect(next.value).toMatchObject({ event: 'mail' });
    }
    stream.destroy();

    // One instance stopped: every request is still answered, by the other.
    await stopServe(a);
    for (let i = 0; i < 6; i++) {
      const listed = await through(nginx.port, ca, `/check-mail`, { authorization: `Bearer ${token}` });
      expect(listed.status).toBe(200);
      expect((listed.json.messages as unknown[]).length).toBe(2);
    }
    expect((await postForm(nginx.port, ca, '/create-session')).status).toBe(200);
    expect(nginx.logs()).not.toContain(token);
    expect(nginx.logs()).not.toContain(adminToken);
  });
});

/** A form POST through nginx (an empty form unless given). */
function postForm(port: number, ca: ReturnType<typeof makeCa>, path: string, form: Record<string, string> = {}) {
  return import('node:https').then(
    (https) =>
      new Promise<{ status: number | undefined; json: Record<string, unknown> }>((resolve, reject) => {
        const body = new URLSearchParams(form).toString();
        const req = https.request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: 'POST',
            servername: 'mail.example.org',
            ca: ca.pem,
            headers: {
              host: 'mail.example.org',
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) as Record<string, unknown> }));
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
