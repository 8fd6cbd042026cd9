/**
 * `--admin-listen HOST:PORT` (config `adminListen`): the admin API on a listener of its own, over real
 * HTTP. There it works with the admin token (and `tempmail-tui admin --url`); on the public HTTP port
 * /admin/ is 404, as a path that is no route; the admin listener serves nothing but /admin/.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../../src/scripting/admin/admin-command';
import { buildServerConfig } from '../../../src/server/config/serve-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { configFiles, usageRefusal } from '../../harness/serve-config-files';
import { sendMail, startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const configFile = configFiles('tempmail-admin-listen-');
const TOKEN = 'listen-admin-0123456789abcdef-0123';
const bearer = { authorization: `Bearer ${TOKEN}` };

async function tokenFile(): Promise<string> {
  const file = join(await cleanup.tempDir('tempmail-admin-listen-'), 'admin-token');
  await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
  return file;
}

describe('the admin API on its own listener', () => {
  it('answers there with the token, and /admin/ is 404 on the public HTTP port', async () => {
    const svc = cleanup.defer(
      await startTestService({ adminTokenFile: await tokenFile(), adminListen: { host: '127.0.0.1', port: 0 } }),
      (s) => s.close(),
    );
    expect(svc.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(svc.adminUrl).not.toBe(svc.baseUrl);
    await newSession(svc.baseUrl);
    expect((await call(svc.adminUrl!, '/admin/stats', { headers: bearer })).json).toMatchObject({
      status: 'success',
      sessions: 1,
    });
    expect((await call(svc.adminUrl!, '/admin/stats')).status).toBe(401);
    for (const path of ['/admin/stats', '/admin/blocks', '/admin/block']) {
      const res = await call(svc.baseUrl, path, { headers: bearer });
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ status: 'error', error: 'not_found' });
    }
    // The admin listener is the admin API only: the public routes are not there.
    for (const path of ['/domains', '/health', '/create-session'])
      expect((await call(svc.adminUrl!, path)).status, path).toBe(404);
    expect(svc.logs).toContain(`admin API at ${svc.adminUrl}`);
    expect(svc.logs.join('\n')).not.toContain(TOKEN);
  });

  it('is what `tempmail-tui admin --url` drives', async () => {
    const file = await tokenFile();
    const svc = cleanup.defer(
      await startTestService({ adminTokenFile: file, adminListen: { host: '127.0.0.1', port: 0 } }),
      (s) => s.close(),
    );
    const box = await newSession(svc.baseUrl);
    await sendMail(svc, { from: 'spam@bad.example', to: box.email, subject: 'one' });
    const run = async (args: string[]) => {
      const out = { stdout: '', stderr: '' };
      const write = (key: 'stdout' | 'stderr') => ({ write: (s: string) => (out[key] += s) });
      const code = await runAdmin(args, {
        stdout: write('stdout'),
        stderr: write('stderr'),
        env: { TEMPMAIL_ADMIN_TOKEN_FILE: file },
      });
      return { code, ...out };
    };
    expect(await run(['stats', '--url', svc.adminUrl!])).toMatchObject({ code: 0, stderr: '' });
    expect(await run(['block', 'domain', 'bad.example', '--url', svc.adminUrl!])).toMatchObject({
      code: 0,
      stderr: 'Blocked: domain bad.example\n',
    });
    // The public port has no admin API to drive.
    expect((await run(['stats', '--url', svc.baseUrl])).code).not.toBe(0);
  });

  it('serve --admin-listen: the built program says where, and serves it there only', async () => {
    const dir = await cleanup.tempDir('tempmail-admin-listen-');
    const args = [
      '--data-dir',
      join(dir, 'data'),
      '--admin-token-file',
      await tokenFile(),
      '--admin-listen',
      '127.0.0.1:0',
    ];
    const serve = cleanup.defer(await startServeProcess(args), (p) => stopServe(p, 'SIGKILL'));
    const url = await waitFor(() => /admin API at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(serve.stderr())?.[1], {
      message: 'the admin address',
    });
    expect((await call(url, '/admin/stats', { headers: bearer })).status).toBe(200);
    expect((await call(serve.baseUrl, '/admin/stats', { headers: bearer })).status).toBe(404);
    expect(serve.stderr()).not.toContain(TOKEN);
  });

  it('reads adminListen from the config file and --admin-listen over it; refuses it without an admin token', async () => {
    const file = await tokenFile();
    const fromFile = buildServerConfig(
      { config: await configFile({ adminTokenFile: file, adminListen: '[::1]:9026' }) },
      {},
    );
    expect(fromFile.adminListen).toEqual({ host: '::1', port: 9026 });
    expect(
      buildServerConfig(
        {
          config: await configFile({ adminListen: '[::1]:9026' }),
          'admin-token-file': file,
          'admin-listen': '127.0.0.1:0',
        },
        {},
      ).adminListen,
    ).toEqual({ host: '127.0.0.1', port: 0 });
    expect(usageRefusal(() => buildServerConfig({ 'admin-token-file': file, 'admin-listen': '9026' }, {}))).toMatch(
      /^--admin-listen: expected HOST:PORT/,
    );
    expect(usageRefusal(() => buildServerConfig({ 'admin-listen': '127.0.0.1:9026' }, {}))).toBe(
      '--admin-listen (adminListen) serves the admin API, which needs --admin-token-file (adminTokenFile)',
    );
  });
});
