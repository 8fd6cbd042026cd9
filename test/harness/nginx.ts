/**
 * A shipped nginx site (scripts/deploy) in a real nginx (Debian's nginx-light; .ci/run installs it), as
 * shipped but for its ports, paths and a test certificate: its backends 127.0.0.1:8025, :8026... become
 * the given ports, in that order. Debian's nginx.conf around it: an error log at its default level, an
 * access log. Killed after the test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Cleanup } from './cleanup';
import { startDaemon } from './daemon';
import { findDebianProgram } from './debian-program';
import { closedPort } from './ports';
import { makeServerCert, type TestCa } from './tls-certs';

export const NGINX_HOST = 'mail.example.org';
const NGINX = findDebianProgram('nginx', 'nginx-light');

/** nginx running `site` in `dir`, proxying to `backends`; resolves once it listens (HTTPS on `port`). */
export async function startNginx(
  cleanup: Cleanup,
  dir: string,
  site: string,
  backends: number[],
  ca: TestCa,
): Promise<{ port: number; logs(): string }> {
  if (!NGINX.path) throw new Error(NGINX.missing);
  const cert = makeServerCert(ca, 'nginx', NGINX_HOST);
  const [plain, tls] = [await closedPort(), await closedPort()];
  const logs = join(dir, 'logs');
  await mkdir(logs, { recursive: true });
  const used = new Set<string>();
  const text = site
    .replace(/^\s*listen \[::\]:\d+.*$/gm, '')
    .replace('listen 80;', `listen 127.0.0.1:${plain};`)
    .replace('listen 443 ssl;', `listen 127.0.0.1:${tls} ssl;`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${cert.cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${cert.key};`)
    .replace(/127\.0\.0\.1:(802\d)\b/g, (_all, port: string) => {
      used.add(port);
      return `127.0.0.1:${backends[Number(port) - 8025]}`;
    })
    .replaceAll('/var/log/nginx/', `${logs}/`);
  if (used.size !== backends.length)
    throw new Error(`the site names ${used.size} backend(s), the test gives ${backends.length}`);
  await writeFile(join(dir, 'site.conf'), text);
  await writeFile(
    join(dir, 'nginx.conf'),
    `pid ${dir}/nginx.pid;
error_log ${logs}/error.log;
events {}
http {
  access_log ${logs}/access.log;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  include ${dir}/site.conf;
}
`,
  );
  const daemon = await startDaemon(
    cleanup,
    NGINX.path,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off; master_process off;'],
    tls,
  );
  const allLogs = () =>
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + daemon.stderr();
  return { port: tls, logs: allLogs };
}

/** An HTTPS request to nginx for `path`, trusting the test CA; resolves with the answer (its body a stream). */
export function nginxGet(
  port: number,
  ca: TestCa,
  path: string,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port, path, servername: NGINX_HOST, ca: ca.pem, headers: { host: NGINX_HOST, ...headers } },
      resolve,
    );
    req.on('error', reject);
  });
}
