/**
 * The files in scripts/deploy/ that docs/server/deploy.md installs: the systemd unit, the
 * nginx site and the certbot hook. The unit's ExecStart must be flags that `serve` really takes, and the
 * same command (ports, data dir and certificate paths swapped for a test's) must start the built program
 * with STARTTLS and reload on the unit's ExecReload signal; the three files must agree on the port and
 * the certificate paths.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SERVE_OPTIONS } from '../../src/server/config/serve-config';
import { buildServerConfig, type ServeFlags } from '../../src/server/config/serve-config';
import { cleanupAfterEach } from '../harness/cleanup';
import { startServeProcess, stopServe } from '../harness/serve-process';
import { openSmtp } from '../harness/smtp-dialog';
import { makeCa, makeServerCert } from '../harness/tls-certs';
import { waitFor } from '../harness/wait';

const cleanup = cleanupAfterEach();
const deploy = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../scripts/deploy/${name}`, import.meta.url)), 'utf8');
const unit = deploy('tempmail-tui.service');
const nginx = deploy('nginx-tempmail-tui.conf');
const hook = deploy('certbot-deploy-hook.sh');

/** `Key=value` lines of the unit, continuation lines joined. */
function directives(text: string): Map<string, string> {
  const joined = text.replace(/\\\n\s*/g, ' ');
  return new Map(
    joined
      .split('\n')
      .flatMap((line) =>
        /^[A-Za-z]+=/.test(line)
          ? [[line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()] as [string, string]]
          : [],
      ),
  );
}

const exec = directives(unit).get('ExecStart')!.split(/\s+/);
const serveArgs = exec.slice(exec.indexOf('serve') + 1);
const flag = (name: string) => serveArgs[serveArgs.indexOf(name) + 1]!;

describe('scripts/deploy/tempmail-tui.service', () => {
  it('runs `tempmail-tui serve` on the Node it names, with flags serve takes, on port 25 without root', () => {
    expect(exec[0]).toMatch(/\/node$/); // the Node it runs is named, not found by `env node`
    expect(exec[1]).toMatch(/\/node_modules\/tempmail-tui\/dist\/cli\.js$/);
    const flags = parseArgs({ args: serveArgs, options: SERVE_OPTIONS, strict: true, allowPositionals: false })
      .values as ServeFlags;
    const config = buildServerConfig(flags, {});
    expect(config).toMatchObject({
      domains: ['tmp.example.org'],
      smtpHost: '0.0.0.0',
      smtpPort: 25,
      httpHost: '127.0.0.1',
      httpPort: 8025,
      trustProxy: true,
      dataDir: '/var/lib/tempmail-tui',
      tlsCertFile: '/etc/tempmail-tui/tls/fullchain.pem',
      tlsKeyFile: '/etc/tempmail-tui/tls/privkey.pem',
    });
    const d = directives(unit);
    expect(d.get('User')).not.toBe('root');
    expect(d.get('AmbientCapabilities')).toBe('CAP_NET_BIND_SERVICE');
    expect(d.get('CapabilityBoundingSet')).toBe('CAP_NET_BIND_SERVICE');
    expect(d.get('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(d.get('StateDirectory')).toBe('tempmail-tui');
  });

  it('the same command starts the built serve with STARTTLS, and its ExecReload signal reloads the certificate', async () => {
    const dir = await cleanup.tempDir('tempmail-deploy-');
    const ca = makeCa(dir);
    const cert = makeServerCert(ca, 'mx', 'mail.example.org');
    const swap: Record<string, string> = {
      '--smtp-host': '127.0.0.1',
      '--smtp-port': '0',
      '--http-port': '0',
      '--data-dir': join(dir, 'data'),
      '--tls-cert': join(dir, 'fullchain.pem'),
      '--tls-key': join(dir, 'privkey.pem'),
    };
    copyFileSync(cert.cert, swap['--tls-cert']!);
    copyFileSync(cert.key, swap['--tls-key']!);
    const args = serveArgs.map((arg, i) => swap[serveArgs[i - 1]!] ?? arg);
    const proc = cleanup.defer(await startServeProcess(args), (p) => stopServe(p, 'SIGKILL'));
    expect(proc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const c = await openSmtp(proc);
    expect(await c.command('EHLO deploy.test')).toContain('STARTTLS');
    await c.command('QUIT');
    proc.child.kill('SIGHUP');
    await waitFor(() => proc.stderr().includes('SIGHUP: STARTTLS now offers CN=mail.example.org'), {
      message: 'the reload',
    });
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});

describe('scripts/deploy/nginx-tempmail-tui.conf and scripts/deploy/certbot-deploy-hook.sh', () => {
  it('proxy to the port the unit listens on, with X-Forwarded-For for --trust-proxy', () => {
    expect(nginx).toContain(`proxy_pass http://${flag('--http-host')}:${flag('--http-port')};`);
    expect(nginx).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(serveArgs).toContain('--trust-proxy');
  });

  it('install the renewed certificate where the unit reads it, and reload the unit', () => {
    expect(hook).toContain(`"$RENEWED_LINEAGE/fullchain.pem" ${flag('--tls-cert')}`);
    expect(hook).toContain(`"$RENEWED_LINEAGE/privkey.pem" ${flag('--tls-key')}`);
    expect(hook).toContain('systemctl try-reload-or-restart tempmail-tui');
    expect(hook).toContain(`-g ${directives(unit).get('Group')}`);
  });
});
