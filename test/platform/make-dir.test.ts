/**
 * makeDir / makeDirSync: the directory creation the reference service uses instead of Node's recursive
 * mkdir (which spins forever under /proc). Real directories in a temp dir; /proc where there is one.
 */
import { existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDir, makeDirSync, MakeDirError } from '../../src/platform/make-dir';
import { cleanupAfterEach } from '../harness/cleanup';

const cleanup = cleanupAfterEach();
const hasProc = existsSync('/proc/self') && statSync('/proc').isDirectory();
const variants = [
  ['makeDir', (dir: string) => makeDir(dir)],
  ['makeDirSync', async (dir: string) => makeDirSync(dir)],
] as const;

describe.each(variants)('%s', (_name, make) => {
  it('creates every missing level, each mode 0700, and returns them outermost first', async () => {
    const root = await cleanup.tempDir('tempmail-mkdir-');
    const deep = join(root, 'a', 'b', 'c');
    expect(await make(deep)).toEqual([join(root, 'a'), join(root, 'a', 'b'), deep]);
    for (const dir of [join(root, 'a'), join(root, 'a', 'b'), deep]) {
      expect(statSync(dir).isDirectory()).toBe(true);
      if (process.platform !== 'win32') expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
  });

  it('accepts an existing directory (and a link to one) and creates nothing', async () => {
    const root = await cleanup.tempDir('tempmail-mkdir-');
    expect(await make(root)).toEqual([]);
    symlinkSync(root, join(root, 'link'));
    expect(await make(join(root, 'link'))).toEqual([]);
    expect(await make(join(root, 'link', 'inside'))).toEqual([join(root, 'link', 'inside')]);
  });

  it('refuses a file in the place of the directory (EEXIST) or of a parent (ENOTDIR), naming it', async () => {
    const root = await cleanup.tempDir('tempmail-mkdir-');
    const file = join(root, 'afile');
    writeFileSync(file, 'x');
    const asDir = await Promise.resolve(make(file)).catch((e: unknown) => e);
    expect(asDir).toBeInstanceOf(MakeDirError);
    expect(asDir).toMatchObject({
      code: 'EEXIST',
      path: file,
      message: `EEXIST: exists and is not a directory, mkdir '${file}'`,
    });
    const under = await Promise.resolve(make(join(file, 'sub', 'deeper'))).catch((e: unknown) => e);
    expect(under).toMatchObject({ code: 'ENOTDIR' });
    expect((under as Error).message).toBe(
      `ENOTDIR: not a directory, mkdir '${join(file, 'sub', 'deeper')}' ('${file}' is not a directory)`,
    );
    expect(existsSync(join(root, 'sub'))).toBe(false);
  });

  it('refuses a broken symbolic link in the way, without looping', async () => {
    const root = await cleanup.tempDir('tempmail-mkdir-');
    const dangling = join(root, 'dangling');
    symlinkSync(join(root, 'nowhere'), dangling);
    await expect(Promise.resolve(make(dangling))).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it.skipIf(!hasProc)('fails at once under /proc (where a recursive mkdir spins forever)', async () => {
    for (const dir of ['/proc/tempmail-test-nope', '/proc/tempmail-test-nope/a/b', '/proc/1/nope']) {
      const error = await Promise.resolve(make(dir)).catch((e: unknown) => e);
      expect(error, dir).toBeInstanceOf(MakeDirError);
      // The reason, before the first comma, carries no path (a health detail shows only that part).
      expect((error as Error).message.split(',')[0], dir).toMatch(/^E[A-Z]+: [^/]+$/);
    }
    const top = await Promise.resolve(make('/proc/tempmail-test-nope/a')).catch((e: unknown) => e);
    expect(top).toMatchObject({
      code: 'ENOENT',
      path: '/proc/tempmail-test-nope',
      message:
        "ENOENT: the parent directory does not allow creating directories in it, mkdir '/proc/tempmail-test-nope'",
    });
  });
});
