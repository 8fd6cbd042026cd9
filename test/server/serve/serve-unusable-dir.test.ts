/**
 * A data directory that cannot be created: `serve` exits 1 at once with one readable line. Under /proc
 * Node's recursive mkdir used to spin forever at full CPU (mkdir says ENOENT, its parent says EEXIST, and
 * again); the built program in a child process, as a user runs it, plus the app's local mode in-process.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalService } from '../../../src/tui/shell/local-service';
import { cleanupAfterEach } from '../../harness/cleanup';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../../harness/serve-process';

const cleanup = cleanupAfterEach();
const hasProc = existsSync('/proc/self') && statSync('/proc').isDirectory();

/** The exit of `proc`, or a SIGKILL (and so a failed expectation) once `ms` have passed. */
async function exitWithin(proc: ServeProcess, ms = 10_000) {
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), ms);
  try {
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

function serve(dataDir: string): ServeProcess {
  const proc = spawnCli(['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', dataDir]);
  return cleanup.defer(proc, (p) => stopServe(p, 'SIGKILL'));
}

describe('serve with a data dir it cannot create', () => {
  it.skipIf(!hasProc).each(['/proc/tempmail-test-nope', '/proc/1/nope', '/proc/tempmail-test-nope/deeper/data'])(
    'exits 1 at once for %s, with one line naming the directory and the reason',
    async (dataDir) => {
      const proc = serve(dataDir);
      expect(await exitWithin(proc)).toEqual({ code: 1, signal: null });
      const lines = proc.stderr().split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^tempmail-tui serve: cannot open the data directory ${dataDir}: ENOENT: the parent directory does not allow creating directories in it, mkdir '/proc/[^']+'$`,
        ),
      );
      expect(proc.stdout()).toBe('');
    },
  );

  it('still names a file in the way (EEXIST / ENOTDIR), and creates nothing beside it', async () => {
    const dir = await cleanup.tempDir('tempmail-unusable-');
    const file = join(dir, 'afile');
    writeFileSync(file, 'x');
    const asDir = serve(file);
    expect(await exitWithin(asDir)).toEqual({ code: 1, signal: null });
    expect(asDir.stderr()).toBe(
      `tempmail-tui serve: cannot open the data directory ${file}: EEXIST: exists and is not a directory, mkdir '${file}'\n`,
    );
    const under = serve(join(file, 'sub'));
    expect(await exitWithin(under)).toEqual({ code: 1, signal: null });
    expect(under.stderr()).toBe(
      `tempmail-tui serve: cannot open the data directory ${join(file, 'sub')}: ENOTDIR: not a directory, mkdir '${join(file, 'sub')}' ('${file}' is not a directory)\n`,
    );
  });

  it('creates a missing data dir several levels deep, 0700 each', async () => {
    const dir = await cleanup.tempDir('tempmail-unusable-');
    const deep = join(dir, 'a', 'b', 'data');
    const proc = cleanup.defer(await startServeProcess(['--data-dir', deep]), (p) => stopServe(p, 'SIGKILL'));
    for (const d of [join(dir, 'a'), join(dir, 'a', 'b'), deep, join(deep, 'sessions'), join(deep, 'messages')]) {
      expect(statSync(d).mode & 0o777, d).toBe(0o700);
    }
    expect(await stopServe(proc)).toEqual({ code: 0, signal: null });
  });
});

describe("the app's local mode (same server code)", () => {
  it.skipIf(!hasProc)('rejects at once with the readable reason when its data dir is under /proc', async () => {
    const env = { ...process.env, TEMPMAIL_TUI_HOME: '/proc/tempmail-test-nope', XDG_DATA_HOME: undefined };
    const error = await startLocalService(env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^cannot open the data directory \/proc\/tempmail-test-nope\/data: ENOENT: the parent directory does not allow creating directories in it, mkdir '\/proc\/tempmail-test-nope'$/,
    );
  });
});
