/**
 * The install paths docs/server/deploy.md (step 2) and the README give, run as written, offline:
 *
 * - from a clone: `git clone`, the dependencies, `npm run build`, `npm install -g .`: the global command
 *   works (`serve --version`), and the deploy files are in the clone's `scripts/deploy/`;
 * - from a release tarball: `npm pack` of that clone (its prepack builds dist/), `npm install -g
 *   ./tempmail-tui-<version>.tgz`: the deploy files are in `$(npm root -g)/tempmail-tui/scripts/deploy/`,
 *   and the path the unit's ExecStart names there is the installed program.
 *
 * The clone is of this repository's committed HEAD. Its dependencies are this tree's node_modules (a
 * link: `npm ci` would copy ~500 MB from the cache for nothing the test looks at). Each global install
 * goes to a prefix of its own in a temp dir. Slow (a clone and two builds): one file, run once.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const version = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version as string;
// The Node that runs the tests comes first: the installed command's `#!/usr/bin/env node` finds it.
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const run = (command: string, args: string[], cwd: string) =>
  exec(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });

/** Why these tests cannot run here, or undefined: they need git, npm and a git checkout. */
async function missing(): Promise<string | undefined> {
  if (!existsSync(join(root, '.git'))) return 'this tree is not a git checkout (nothing to clone)';
  for (const tool of ['git', 'npm']) {
    if (
      !(await run(tool, ['--version'], root).then(
        () => true,
        () => false,
      ))
    )
      return `${tool} is not installed`;
  }
  return undefined;
}

const why = await missing();
if (why && process.env.CI) throw new Error(`the install path tests cannot run: ${why}`);
if (why) console.warn(`\n*** test/package/install-paths.test.ts is SKIPPED: ${why} ***\n`);

let dir: string;
let clone: string;

beforeAll(async () => {
  if (why) return;
  dir = await mkdtemp(join(tmpdir(), 'tempmail-install-'));
  clone = join(dir, 'tempmail-tui');
  await run('git', ['clone', '--quiet', root, clone], dir);
  await symlink(join(root, 'node_modules'), join(clone, 'node_modules'));
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(why !== undefined)('the documented install paths', () => {
  it('from a clone: build, then npm install -g . leaves a working command', async () => {
    await run('npm', ['run', 'build'], clone);
    const prefix = join(dir, 'from-clone');
    await run('npm', ['install', '--global', '--offline', '--prefix', prefix, '.'], clone);
    const bin = join(prefix, 'bin', 'tempmail-tui');
    expect((await run(bin, ['serve', '--version'], dir)).stdout).toBe(`${version}\n`);
    expect((await run(bin, ['--version'], dir)).stdout).toBe(`${version}\n`);
    // The global package is the clone itself (a link): its deploy files are the clone's.
    expect(await realpath(join(prefix, 'lib', 'node_modules', 'tempmail-tui'))).toBe(await realpath(clone));
    expect((await readdir(join(clone, 'scripts', 'deploy'))).sort()).toEqual([
      'certbot-deploy-hook.sh',
      'nginx-tempmail-tui-two.conf',
      'nginx-tempmail-tui.conf',
      'tempmail-tui.service',
    ]);
  }, 180_000);

  it('from a release tarball: the deploy files are in $(npm root -g)/tempmail-tui/scripts/deploy', async () => {
    // npm pack runs prepack, which builds dist/ in the clone: the tarball a release would be.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], clone);
    const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }];
    const prefix = join(dir, 'from-tarball');
    await run('npm', ['install', '--global', '--offline', '--prefix', prefix, `./${filename}`], dir);
    const npmRoot = (await run('npm', ['root', '--global', '--prefix', prefix], dir)).stdout.trim();
    const deploy = join(npmRoot, 'tempmail-tui', 'scripts', 'deploy');
    // Step 3 installs the hook, step 4 copies the unit, step 5 the site: from there, as the docs say.
    expect((await readdir(deploy)).sort()).toEqual([
      'certbot-deploy-hook.sh',
      'nginx-tempmail-tui-two.conf',
      'nginx-tempmail-tui.conf',
      'tempmail-tui.service',
    ]);
    // The unit's ExecStart names `<npm root -g>/tempmail-tui/dist/cli.js`: the installed program.
    const unit = await readFile(join(deploy, 'tempmail-tui.service'), 'utf8');
    const entry = /^ExecStart=\S+ \/usr\/local\/lib\/node_modules\/(tempmail-tui\/dist\/cli\.js) /m.exec(unit)?.[1];
    expect(entry).toBe('tempmail-tui/dist/cli.js');
    const cli = join(npmRoot, entry!);
    expect((await run(process.execPath, [cli, 'serve', '--version'], dir)).stdout).toBe(`${version}\n`);
    expect((await run(join(prefix, 'bin', 'tempmail-tui'), ['serve', '--version'], dir)).stdout).toBe(`${version}\n`);
  }, 180_000);
});
