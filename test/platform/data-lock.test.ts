/**
 * One service per data dir: `service.lock` names the running service; a second one on the dir is
 * refused (in-process and as the built `serve`), a lock left by a dead process is taken over, and the
 * lock goes away on close (and when a start fails after taking it).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirInUseError, LOCK_FILE } from '../../src/platform/data-lock';
import { cleanupAfterEach } from '../harness/cleanup';
import { call } from '../harness/http';
import { spawnCli, startServeProcess, stopServe, type ServeProcess } from '../harness/serve-process';
import { startTestService, type TestService } from '../harness/service';
import { startLocalService } from '../../src/tui/shell/local-service';

const cleanup = cleanupAfterEach();
const tempDir = () => cleanup.tempDir('tempmail-lock-');
/** A test service on `dataDir`, closed after the test. */
async function started(dataDir: string): Promise<TestService> {
  return cleanup.defer(await startTestService({ dataDir }), (svc) => svc.close());
}
const track = <T extends ServeProcess>(proc: T): T => cleanup.defer(proc, (p) => stopServe(p, 'SIGKILL'));
const lockOf = async (dir: string) =>
  JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as Record<string, unknown>;

const hasProc = existsSync('/proc/self/stat');

/** A live process that is no service: its pid stands for one the kernel handed out again. */
function liveStranger(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  cleanup.defer(child, (c) => c.kill('SIGKILL'));
  return child.pid!;
}

/** The kernel's start time of `pid` (field 22 of /proc/<pid>/stat, after the parenthesised name). */
function startTicksOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}
const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

/** The pid of a process that has exited (and been reaped): kill(pid, 0) says ESRCH. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('close', resolve));
  return child.pid!;
}

describe('service.lock', () => {
  it('is written (0600) with pid, URL and SMTP once the service listens, and refuses a second service on the dir', async () => {
    const dataDir = await tempDir();
    const first = await started(dataDir);
    const lock = await lockOf(dataDir);
    expect(lock).toMatchObject({
      pid: process.pid,
      httpUrl: first.baseUrl,
      smtpHost: '127.0.0.1',
      smtpPort: first.smtpPort,
    });
    expect(Date.parse(lock.startedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(statSync(join(dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600);

    const second = startTestService({ dataDir });
    await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(second).rejects.toThrow(
      `the data dir ${dataDir} is in use by a tempmail-tui service (pid ${process.pid}, ${first.baseUrl}); stop it or pass --data-dir`,
    );
    // The refused start left the first one's lock alone, and the first still serves.
    expect((await lockOf(dataDir)).httpUrl).toBe(first.baseUrl);
    expect((await call(first.baseUrl, '/health')).status).toBe(200);
  });

  it('is removed on close, so the dir can be used again', async () => {
    const dataDir = await tempDir();
    const first = await started(dataDir);
    await first.close();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const again = await started(dataDir);
    expect((await lockOf(dataDir)).httpUrl).toBe(again.baseUrl);
  });

  it('is taken over when its process is gone, when it names our own pid but this process holds no lock, or when unreadable', async () => {
    const dataDir = await tempDir();
    const pid = await deadPid();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // What kill -9 leaves behind.
    for (const stale of [
      JSON.stringify({
        pid,
        startedAt: '2020-01-01T00:00:00.000Z',
        httpUrl: 'http://127.0.0.1:1/',
        smtpHost: '127.0.0.1',
        smtpPort: 1,
      }),
      // A restarted container often gets the same pid back: a lock with our pid we do not hold is old.
      JSON.stringify({ pid: process.pid, startedAt: '2020-01-01T00:00:00.000Z' }),
      'not json at all',
    ]) {
      await writeFile(join(dataDir, LOCK_FILE), stale, { mode: 0o600 });
      const svc = await startTestService({ dataDir });
      expect(await lockOf(dataDir)).toMatchObject({ pid: process.pid, httpUrl: svc.baseUrl });
      await svc.close();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    }
  });

  it('records the holder by pid, boot and process start time, so a reused pid is not taken for the holder', async () => {
    const dataDir = await tempDir();
    const svc = await started(dataDir);
    const lock = await lockOf(dataDir);
    if (hasProc)
      expect(lock).toMatchObject({ pid: process.pid, bootId: bootId(), startTicks: startTicksOf(process.pid) });
    await svc.close();
  });

  it.skipIf(!hasProc)(
    'is taken over when its pid now belongs to another live process (another start time, or another boot)',
    async () => {
      const dataDir = await tempDir();
      const stranger = liveStranger();
      const ticks = startTicksOf(stranger);
      // Holder-less and fully written locks alike: kill -9 of a service, then the pid went to someone else.
      for (const stale of [
        {
          pid: stranger,
          startedAt: '2020-01-01T00:00:00.000Z',
          bootId: bootId(),
          startTicks: String(Number(ticks) + 1),
        },
        {
          pid: stranger,
          startedAt: '2020-01-01T00:00:00.000Z',
          bootId: bootId(),
          startTicks: '1',
          httpUrl: 'http://127.0.0.1:1/',
          smtpHost: '127.0.0.1',
          smtpPort: 1,
        },
        {
          pid: stranger,
          startedAt: '2020-01-01T00:00:00.000Z',
          bootId: '00000000-0000-0000-0000-000000000000',
          startTicks: ticks,
        },
      ]) {
        await writeFile(join(dataDir, LOCK_FILE), JSON.stringify(stale), { mode: 0o600 });
        const svc = await startTestService({ dataDir });
        expect(await lockOf(dataDir)).toMatchObject({ pid: process.pid, httpUrl: svc.baseUrl });
        await svc.close();
      }
      // The same live process with its own start time is the holder: refused, lock left alone.
      const held = JSON.stringify({
        pid: stranger,
        startedAt: new Date().toISOString(),
        bootId: bootId(),
        startTicks: ticks,
      });
      await writeFile(join(dataDir, LOCK_FILE), held, { mode: 0o600 });
      await expect(startTestService({ dataDir })).rejects.toBeInstanceOf(DataDirInUseError);
      expect(await readFile(join(dataDir, LOCK_FILE), 'utf8')).toBe(held);
      // A lock from before start times were recorded names a pid only: a live pid keeps it, as it did.
      await writeFile(
        join(dataDir, LOCK_FILE),
        JSON.stringify({ pid: stranger, startedAt: new Date().toISOString() }),
        { mode: 0o600 },
      );
      await expect(startTestService({ dataDir })).rejects.toBeInstanceOf(DataDirInUseError);
    },
  );

  it.skipIf(!hasProc)("does not block the app's local mode when its pid was reused", async () => {
    const home = await tempDir();
    const stranger = liveStranger();
    await mkdir(join(home, 'data'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(home, 'data', LOCK_FILE),
      JSON.stringify({
        pid: stranger,
        startedAt: '2020-01-01T00:00:00.000Z',
        bootId: bootId(),
        startTicks: '1',
        httpUrl: 'http://127.0.0.1:1/',
        smtpHost: '127.0.0.1',
        smtpPort: 1,
      }),
      { mode: 0o600 },
    );
    const local = cleanup.defer(await startLocalService({ TEMPMAIL_TUI_HOME: home }, [0]), (l) => l.close());
    expect(local.sharedPid).toBeUndefined();
    expect((await call(local.httpUrl, '/health')).status).toBe(200);
    expect(await lockOf(join(home, 'data'))).toMatchObject({ pid: process.pid, httpUrl: local.httpUrl });
  });

  it('goes to exactly one of two services started at once, on a free dir and over a stale lock', async () => {
    const dataDir = await tempDir();
    for (const before of [undefined, JSON.stringify({ pid: await deadPid(), startedAt: '2020-01-01T00:00:00.000Z' })]) {
      if (before) await writeFile(join(dataDir, LOCK_FILE), before, { mode: 0o600 });
      const results = await Promise.allSettled([startTestService({ dataDir }), startTestService({ dataDir })]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(DataDirInUseError);
      expect((await lockOf(dataDir)).httpUrl).toBe(won[0]!.baseUrl);
      await won[0]!.close();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    }
  });

  it('is released when the start fails after taking it (port in use)', async () => {
    const dataDir = await tempDir();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    cleanup.defer(busy, (s) => new Promise((resolve) => s.close(resolve)));
    const port = (busy.address() as { port: number }).port;
    await expect(startTestService({ dataDir, httpPort: port })).rejects.toThrow(/already in use/);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('a lock that is a directory is a readable start error, not a hang', async () => {
    const dataDir = await tempDir();
    await mkdir(join(dataDir, LOCK_FILE));
    await expect(startTestService({ dataDir })).rejects.toThrow(/cannot open the data directory/);
  });
});

describe('tempmail-tui serve on a locked data dir', () => {
  it('exits 1 with one line naming the running service; after it stops, serve starts on the dir', async () => {
    const dataDir = await tempDir();
    const first = track(await startServeProcess(['--data-dir', dataDir]));
    const second = spawnCli(['serve', '--data-dir', dataDir, '--http-port', '0', '--smtp-port', '0']);
    expect((await second.exited).code).toBe(1);
    expect(second.stdout()).toBe('');
    expect(second.stderr()).toBe(
      `tempmail-tui serve: the data dir ${dataDir} is in use by a tempmail-tui service (pid ${first.child.pid}, ${first.baseUrl}); stop it or pass --data-dir\n`,
    );
    expect(await stopServe(first)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

    // kill -9 leaves the lock behind; the next serve takes it over.
    const killed = track(await startServeProcess(['--data-dir', dataDir]));
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect((await lockOf(dataDir)).pid).toBe(killed.child.pid);
    const next = track(await startServeProcess(['--data-dir', dataDir]));
    expect((await lockOf(dataDir)).pid).toBe(next.child.pid);
  });

  it.skipIf(!hasProc)('takes over a lock whose pid now belongs to another live process', async () => {
    const dataDir = await tempDir();
    const stranger = liveStranger();
    await writeFile(
      join(dataDir, LOCK_FILE),
      JSON.stringify({
        pid: stranger,
        startedAt: '2020-01-01T00:00:00.000Z',
        bootId: bootId(),
        startTicks: '1',
        httpUrl: 'http://127.0.0.1:1/',
        smtpHost: '127.0.0.1',
        smtpPort: 1,
      }),
      { mode: 0o600 },
    );
    const proc = track(await startServeProcess(['--data-dir', dataDir]));
    expect(await lockOf(dataDir)).toMatchObject({
      pid: proc.child.pid,
      httpUrl: proc.baseUrl,
      startTicks: startTicksOf(proc.child.pid!),
    });
  });

  it('a failed write of where it listens (a full disk) leaves the lock its own: release still removes it', async () => {
    const dataDir = await tempDir();
    const lock = await acquireDataDirLock(dataDir);
    const before = readFileSync(lock.file, 'utf8');
    // The file-size limit of this process, for the one write: EFBIG, as root too (Node ignores SIGXFSZ).
    const limit = (soft: string) =>
      execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${soft}:unlimited`]);
    limit(String(before.length + 64));
    try {
      await expect(
        lock.listening({ httpUrl: `http://127.0.0.1:1/${'x'.repeat(500)}`, smtpHost: '127.0.0.1', smtpPort: 1 }),
      ).rejects.toThrow(/EFBIG/);
    } finally {
      limit('unlimited');
    }
    expect(readFileSync(lock.file, 'utf8')).toBe(before);
    await lock.release();
    expect(existsSync(lock.file)).toBe(false);
  });
});
